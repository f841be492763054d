/* powerwindow_constants.h — the power window's model constants (docs/powerwindow.md), the one
 * thing the monolithic reference (powerwindow_ref.c) and the comparison (bench/powerwindow/
 * compare.c) may share with the co-simulation path.  The same values are the start values
 * of the test FMUs' parameters (tests/fmus/{power,window,obstacle}/, their model
 * descriptions) and controller_sa's T; nothing else is shared: the reference integrates and
 * decides on its own. */
#ifndef POWERWINDOW_CONSTANTS_H
#define POWERWINDOW_CONSTANTS_H

/* power: the DC motor and its switch */
#define PW_J 0.085      /* kg.m2, rotor inertia */
#define PW_B 5.0        /* N.m.s/rad, motor viscous friction */
#define PW_K 7.45       /* N.m/A, torque and back-EMF constant */
#define PW_R 0.15       /* Ohm, armature resistance */
#define PW_L 0.036      /* H, armature inductance */
#define PW_V_ABS 12.0   /* V, supply voltage */

/* window: kinematics and friction */
#define PW_WINDOW_R 0.11 /* m, shaft radius: height = r displacement */
#define PW_WINDOW_B 10.0 /* window friction: torque b r speed */

/* obstacle: the stiff one-sided spring */
#define PW_OBSTACLE_C 1e10       /* N/m */
#define PW_OBSTACLE_POSITION 0.45 /* m */

/* controller: the obstacle threshold on the armature current, the emergency's length */
#define PW_THRESHOLD 5.0          /* A */
#define PW_EMERGENCY_DURATION 1.0 /* s */

#endif
