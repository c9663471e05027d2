// A task function this header declares and extern_unused.c never calls: its
// wrapper must not draw -Wunused-function.
#pragma oss task inout(*p)
void never_called(int *p);
