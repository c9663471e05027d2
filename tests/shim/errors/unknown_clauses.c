/* Unknown clauses are ignored with a warning, but one that is a macro's
   name is an error: joulecc does not expand macros in pragmas, and
   dropping it would drop what it expands to (here a dependence). */
#define DEPS inout(x)

int main(void) {
  int x = 0;
#pragma oss task DEPS
  x++;
#pragma oss task inout(x) speed(9)
  x++;
#pragma oss taskwait
  return x;
}
// expect: 8:18: error: 'DEPS' in '#pragma oss task' is a macro: joulecc does not expand macros in pragmas
// expect: 10:27: warning: clause 'speed' is ignored (joulecc does not know it on '#pragma oss task')
