/* ssp_adapt.h — an SSP system as an adaptation: the composite wrapper of `sacc build
 * SYSTEM.ssp`, and the inner an adaptation script names with `at "system.ssp"`.
 *
 * Pipeline position: the SSP reader (ssp_read, ssp_flatten) -> *an adaptation script* ->
 * the ordinary check, lower, explicit, emit and package stages.  The script is what a
 * person would write for the system: one inner fmu per component, `coupled as` for the
 * connections between components, input ports bound to the components the top system's
 * input connectors feed, output ports bound from the components that feed its output
 * connectors, `with param` for the values the parameter bindings give, and in and out
 * rules for the transformations of the connections to and from the top system's
 * connectors.  Every node of it carries the place in the SSD it comes from, so the
 * checker's messages point into the SSD. */
#ifndef SACC_SSP_ADAPT_H
#define SACC_SSP_ADAPT_H

#include "driver.h"

/* The module holding the adaptation made from the SSP at path (an .ssp archive or an .ssd),
 * read once per compilation: a second call returns the same module.  Its path is
 * "<path>.sa", its directory the SSP's, its adaptation named after the system and built to
 * "<name>.fmu" there.  NULL after a report (a system the language cannot express is
 * refused naming the SSD element, with a note on what sacc simulate does with it). */
Module *ssp_adaptation_module(Compilation *c, const char *path);

#endif
