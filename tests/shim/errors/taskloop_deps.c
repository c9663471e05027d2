/* Taskloop dependencies joulecc refuses (docs/porting-ompss-semantics.md,
   3.6): a reduction over the loop variable. Other uses of the loop
   variable (a[idx[i]], b[i % 8], b[i; i]) are evaluated per iteration. */
static double a[64], b[64];

void f(int n) {
#pragma oss taskloop reduction(+ : a[i])
  // expect: 7:36: error: taskloop dependency on 'a[i]': a reduction cannot use 'i'
  for (int i = 0; i < n; i++) a[i] += b[i];
}

struct pair { double x, y; };

void g(int n, struct pair *p, struct pair q[4][4]) {
#pragma oss taskloop reduction(+ : [4]p)
  for (int i = 0; i < n; i++) p[i % 4].x += 1;
#pragma oss taskloop reduction(+ : q[0; 2][0; 4])
  for (int i = 0; i < n; i++) q[i % 2][0].y += 1;
}
/* Reductions of records are not element-wise (rows of numbers are). */
// expect: 16:31: error: taskloop reduction on 'p': the elements must be of an arithmetic type (an array, a section or a shaped pointer of numbers)
// expect: 18:31: error: taskloop reduction on 'q': the elements must be of an arithmetic type (an array, a section or a shaped pointer of numbers)
