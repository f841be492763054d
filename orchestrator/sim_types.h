/* sim_types.h — how `sacc simulate` maps a model description's variable types onto the
 * master's (sart_master.h) and the seam's (sart_inner.h): Real for Float64 and Float32,
 * Integer for every integer type and Enumeration, Boolean, and Integer for a Clock too
 * (its ticks, SartVar.is_clock); everything else (String, Binary, arrays) is SART_OTHER,
 * not a signal: Strings and Binaries travel beside the signals (SartMasterOptions'
 * string_*), an array's elements as variables of their own (sim_arrays.c).  The FMI 3.0
 * sized types behind Real and Integer become the seam's value-type table, so that the
 * back end calls the right getter and setter and checks ranges at the boundary. */
#ifndef SIM_TYPES_H
#define SIM_TYPES_H

#include <stddef.h>

#include "fmu.h"
#include "sart_master.h"

/* The bytes of a Binary written as hex digits (either case, two per byte, as FMI 3.0
 * writes Binary start values), malloc'd into *out (*size of them; never NULL on success).
 * Returns 0, or -1 for an odd number of digits or a character that is not one, 1 when out
 * of memory. */
int sim_hex_decode(const char *text, unsigned char **out, size_t *size);

/* The master's type of v. */
SartType sim_sart_type(const FmuVar *v);

/* The value types of info's variables that are not Float64 or Int32, malloc'd into *out
 * (NULL, 0 for FMI 2.0 or when there are none).  Returns 0, or 1 when out of memory. */
int sim_vr_types(const FmuInfo *info, SartVrType **out, size_t *n);

/* The seam and master capabilities info declares (SART_CAP_*) for the interface it runs
 * through: Co-Simulation's, or with me Model Exchange's (SART_CAP_MODEL_EXCHANGE and the
 * <ModelExchange> element's abilities). */
unsigned sim_caps(const FmuInfo *info, bool me);

/* Why v cannot be recorded or connected, for messages ("a String", "an array of 3
 * Float64"), or NULL when it can. */
const char *sim_unsupported(const FmuVar *v, char *buf, size_t size);

#endif
