/* Calls to a task function that joulecc cannot rewrite stop the build:
   left as plain calls they would run out of order without a word. */
#pragma oss task inout(*x)
void inc(int *x) { (*x)++; }

#define CALL(a, b, p) a##b(p)

int main(void) {
  int x = 0;
  CALL(in, c, &x);
#pragma oss taskwait
  return x;
}
// expect: 10:3: error: this call to task function 'inc' cannot be turned into a task: its name is pasted together in a macro (##)
