// C++: task functions that joulecc does not support.
struct S {
#pragma oss task
  void method();
};
template <typename T>
#pragma oss task in(x)
void templated(T x);
#pragma oss task inout(v[0;n])
void ok(int* v, int n);
#pragma oss task device(mic) inout(x)
void by_reference(double& x);
#pragma oss task device(cuda) inout([n]v)
void cuda_by_reference(int& n, double* v);
// expect: 4:8: error: joulecc does not support task pragmas on member functions
// expect: 8:6: error: joulecc does not support template task functions
// expect: 11:18: error: device(mic) task function 'by_reference' takes 'x' by reference; a card task takes its arguments by value (pass a pointer to data its dependencies or copy clauses name)
// expect: 13:18: error: device(cuda) task function 'cuda_by_reference' takes 'n' by reference; a CUDA task takes its arguments by value (pass a pointer to data its dependencies or copy clauses name)
