/* Malformed pragmas, an unknown clause (a warning: it is ignored), clauses
   on the wrong directive. */
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
// expect: 5:27: warning: clause 'foo' is ignored (joulecc does not know it on '#pragma oss task')
// expect: 7:22: error: clause 'grainsize' is not allowed on '#pragma oss taskwait'
// expect: 8:26: error: expected ']' before ')'
// expect: 10:20: error: missing ')' to match this '('
// expect: 12:13: error: unknown OmpSs-2 directive 'frobnicate'
// expect: 13:22: error: expected a name in 'critical(...)'
// expect: 15:28: error: unsupported reduction operator 'foo'
// expect: 17:30: error: clause 'priority' appears more than once
// expect: 19:25: error: device 'opencl' is not supported by joulecc (smp, mic, fpga, cuda)
