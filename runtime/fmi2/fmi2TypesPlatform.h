/* fmi2TypesPlatform.h — the FMI 2.0 scalar types, for the test FMU kit and the tests that
 * load its FMUs.  Written for this project from the types the FMI 2.0 standard documents
 * ("default" platform); the standard's own headers are not packaged for Debian. */
#ifndef FMI2_TYPES_PLATFORM_H
#define FMI2_TYPES_PLATFORM_H

#define fmi2TypesPlatform "default"

typedef void *fmi2Component;            /* an FMU instance */
typedef void *fmi2ComponentEnvironment; /* the importer's pointer, handed back to callbacks */
typedef void *fmi2FMUstate;             /* a snapshot of an instance's state */
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

#endif
