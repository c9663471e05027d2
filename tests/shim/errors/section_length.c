/* Section lengths that are constant and not positive. */
enum { NEG = -2 };
int main(void) {
  int a[8] = {0};
  const int n = -5;
#pragma oss task in(a[0;-5])
  a[0]++;
#pragma oss task in(a[0;n])
  a[0]++;
#pragma oss task inout(a[1;0])
  a[0]++;
#pragma oss task out(a[4:2])
  a[0]++;
#pragma oss task in(a[0;(NEG)])
  a[0]++;
#pragma oss task depend(in: a[0:-1])
  a[0]++;
#pragma oss taskwait
  return a[0];
}
// expect: 6:25: error: the section of 'a' has length -5; a section length must be > 0
// expect: 8:25: error: the section of 'a' has length -5; a section length must be > 0
// expect: 10:28: error: the section of 'a' has length 0; a section length must be > 0
// expect: 12:26: error: the section of 'a' has length -1; a section length must be > 0
// expect: 14:25: error: the section of 'a' has length -2; a section length must be > 0
// expect: 16:33: error: the section of 'a' has length -1; a section length must be > 0
