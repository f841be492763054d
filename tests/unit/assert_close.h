/* assert_close.h — the suite's tolerance assert for doubles (cmocka 1.1's own float assert
 * rounds to float).  Include after <cmocka.h>. */
#ifndef ASSERT_CLOSE_H
#define ASSERT_CLOSE_H

#include <math.h>

/* |a - b| <= tol, with the values in the failure message. */
#define assert_close(a, b, tol)                                                             \
	do {                                                                                \
		double a_ = (a), b_ = (b), t_ = (tol);                                      \
		if (!(fabs(a_ - b_) <= t_))                                                 \
			fail_msg("%s = %.17g, expected %.17g within %g", #a, a_, b_, t_);   \
	} while (0)

#endif
