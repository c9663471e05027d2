/* Taskloop dependencies that use the loop variable in a way joulecc cannot
   bound over a chunk (docs/porting-ompss.md, 3.6). */
static int idx[64];
static double a[64], b[64];

void f(int n) {
#pragma oss taskloop in(a[idx[i]])
  // expect: 7:27: error: taskloop dependency on 'a[idx[i]]': the subscript must be affine in 'i' (the loop variable indexes another array)
  for (int i = 0; i < n; i++) b[i] = a[idx[i]];
#pragma oss taskloop out(b[i % 8])
  // expect: 10:28: error: taskloop dependency on 'b[i % 8]': the subscript must be affine in 'i' ('%' makes the subscript non-monotonic in the loop variable)
  for (int i = 0; i < n; i++) b[i % 8] = 1;
#pragma oss taskloop inout(b[i; i])
  // expect: 13:33: error: taskloop dependency on 'b[i; i]': a section length cannot use 'i'
  for (int i = 0; i < n; i++) b[i] += 1;
#pragma oss taskloop out(b[i * i])
  // expect: 16:28: error: taskloop dependency on 'b[i * i]': the subscript must be affine in 'i' (the subscript multiplies the loop variable by itself)
  for (int i = 0; i < n; i++) b[i * i] = 1;
#pragma oss taskloop collapse(2) out(b[(i + j) / 2])
  // expect: 19:40: error: taskloop dependency on 'b[(i + j) / 2]': the subscript must be affine in 'i', 'j' ('/' over several loop variables: joulecc bounds a subscript one variable at a time)
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) b[(i + j) / 2] = j;
}

struct pair { double x, y; };

void g(int n, struct pair *p, struct pair q[4][4]) {
#pragma oss taskloop reduction(+ : [4]p)
  for (int i = 0; i < n; i++) p[i % 4].x += 1;
#pragma oss taskloop reduction(+ : q[0; 2][0; 4])
  for (int i = 0; i < n; i++) q[i % 2][0].y += 1;
}
/* Reductions of records are not element-wise (rows of numbers are). */
// expect: 29:31: error: taskloop reduction on 'p': the elements must be of an arithmetic type (an array, a section or a shaped pointer of numbers)
// expect: 31:31: error: taskloop reduction on 'q': the elements must be of an arithmetic type (an array, a section or a shaped pointer of numbers)
