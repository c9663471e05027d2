/* A header that reaches another through a computed include. */
#ifndef COMPUTED_H
#define COMPUTED_H
#define SCALE_HEADER "scale.h"
#include SCALE_HEADER
#endif
