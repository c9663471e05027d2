/* Malformed pragmas, unknown clauses, clauses on the wrong directive. */
int main(void) {
  int x = 0, a[10];
#pragma oss task inout(x) foo(3)
  x++;
#pragma oss taskwait grainsize(4)
#pragma oss task in(a[0;3)
  x++;
#pragma oss task in(
  x++;
#pragma oss frobnicate
#pragma oss critical(a b)
  x++;
#pragma omp task reduction(foo: x)
  x++;
#pragma oss task priority(1) priority(2)
  x++;
#pragma omp task device(opencl)
  x++;
  return x + a[0];
}
// expect: 4:27: error: unknown clause 'foo' on '#pragma oss task'
// expect: 6:22: error: clause 'grainsize' is not allowed on '#pragma oss taskwait'
// expect: 7:26: error: expected ']' before ')'
// expect: 9:20: error: missing ')' to match this '('
// expect: 11:13: error: unknown OmpSs-2 directive 'frobnicate'
// expect: 12:22: error: expected a name in 'critical(...)'
// expect: 14:28: error: unsupported reduction operator 'foo'
// expect: 16:30: error: clause 'priority' appears more than once
// expect: 18:25: error: device 'opencl' is not supported by joulecc (smp, mic, fpga, cuda)
