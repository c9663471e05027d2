/* What outlined C tasks cannot capture. */
void local_types(int n) {
  struct local { int v; } s = {1};
  typedef int myint;
  myint m = 2;
#pragma oss task inout(s)
  s.v += m;
}
// expect: 7:3: error: the task uses 's' whose type 'local' is declared inside the function
// expect: 7:10: error: the task uses 'm' whose type 'myint' is declared inside the function
