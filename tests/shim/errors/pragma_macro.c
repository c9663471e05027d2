// A _Pragma in a macro that also expands to the statement: cutting the
// invocation would take the statement with it, so joulecc refuses it.
#define TASK(s) _Pragma("oss task") s
#define WAIT_THEN(s) _Pragma("omp taskwait") s

int main(void) {
  int x = 0;
  TASK(x++;)
  WAIT_THEN(x++;)
  return x;
}
// expect: 8:3: error: joulecc cannot translate '_Pragma("oss task...")' in a macro that also expands to code
// expect: 9:3: error: joulecc cannot translate '_Pragma("omp taskwait...")' in a macro that also expands to code
