/* fmi3PlatformTypes.h — the FMI 3.0 base types.  Written for this project from the types the
 * FMI 3.0 standard documents (fixed-width integers, C99 bool, byte strings). */
#ifndef FMI3_PLATFORM_TYPES_H
#define FMI3_PLATFORM_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define fmi3TypesPlatform "default"

typedef void *fmi3Instance;            /* an FMU instance, opaque to the importer */
typedef void *fmi3InstanceEnvironment; /* the importer's pointer, handed to callbacks */
typedef void *fmi3FMUState;            /* a saved FMU state, opaque to the importer */
typedef uint32_t fmi3ValueReference;

typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

#define fmi3True true
#define fmi3False false
#define fmi3ClockActive true
#define fmi3ClockInactive false

#endif
