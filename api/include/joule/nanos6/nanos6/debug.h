/* <nanos6/debug.h>: the Nanos6 queries debugging code includes. The same
 * functions as <nanos6.h> declares; joule has no further debug hooks. */
#ifndef JOULE_NANOS6_DEBUG_H
#define JOULE_NANOS6_DEBUG_H

#include "../nanos6.h"

#endif /* JOULE_NANOS6_DEBUG_H */
