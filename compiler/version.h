/* version.h — the compiler's version: printed by `sacc --version`, written into every
 * generated model description (generationTool) and hashed into its GUID. */
#ifndef SACC_VERSION_H
#define SACC_VERSION_H

#define SACC_VERSION "0.1.0"

#endif
