// A _Pragma in a macro that also expands to the statement: cutting the
// invocation would take the statement with it, so joulecc refuses it (a
// taskwait without clauses is rewritten in the macro's body instead).
#define TASK(s) _Pragma("oss task") s
#define WAIT_THEN(s) _Pragma("omp taskwait on(x)") s

int main(void) {
  int x = 0;
  TASK(x++;)
  WAIT_THEN(x++;)
  return x;
}
// expect: 9:3: error: joulecc cannot translate '_Pragma("oss task...")' in a macro that also expands to code
// expect: 10:3: error: joulecc cannot translate '_Pragma("omp taskwait...")' in a macro that also expands to code
