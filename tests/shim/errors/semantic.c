/* Regions that name nothing or no object; constructs without their statement. */
enum color { RED };
int f(void);
int main(void) {
  int x = 0, *p = &x;
#pragma oss task in(y) out(x)
  x++;
#pragma oss task in(x + 1)
  x++;
#pragma oss task inout(RED)
  x++;
#pragma oss task in(f())
  x++;
#pragma oss task in(x[0;2])
  x++;
#pragma oss task in(p[2:])
  x++;
#pragma oss taskloop
  x++;
#pragma oss task
  int z = 3;
#pragma oss task default(none) in(p[0])
  x++;
#pragma oss task private(nothere)
  x++;
#pragma oss taskloop collapse(2)
  for (int i = 0; i < 4; i++) x++;
  return x + z;
}
// expect: 6:21: error: use of undeclared identifier 'y'
// expect: 8:21: error: 'x + 1' is not an lvalue
// expect: 10:24: error: 'RED' is not an lvalue
// expect: 12:21: error: 'f()' is not an lvalue
// expect: 14:21: error: section of 'x', which is neither an array nor a pointer
// expect: 16:21: error: the section of pointer 'p' needs a length or an upper bound
// expect: 18:13: error: '#pragma oss taskloop' must be followed by a for loop
// expect: 20:13: error: '#pragma oss task' cannot apply to a declaration
// expect: 23:3: error: variable 'x' needs an explicit data-sharing clause: default(none) is in effect
// expect: 24:26: error: use of undeclared identifier 'nothere'
// expect: 27:31: error: collapse(2) needs 2 perfectly nested loops
