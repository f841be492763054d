/* emit_c_strings.c — what the C emitter writes for Strings: a String lives in the Storage
 * as a char array of SART_STRING_CAP bytes (runtime/sart_wrapper.h says why) and is only
 * written through sart_set_string, which fails on a String too long. */
#include "emit_c_impl.h"

#include <string.h>

uint32_t ec_nvr(const EmitLayout *l, int t)
{
	switch (t) {
	case T_REAL: return l->nreal;
	case T_INTEGER: return l->ninteger;
	case T_BOOLEAN: return l->nboolean;
	default: return l->nstring;
	}
}

const char *ec_string_assign(Ec *e, const char *dst, const char *value, const char *what)
{
	e->uses |= U_W;
	return arena_printf(e->c->arena, "sart_set_string(w, %s, %s, \"%s\");", dst, value,
	                    ec_c_string(e->c->arena, what));
}

/* Whether the Storage holds a String anywhere (a port, a var, an inner's port or
 * parameter). */
bool ec_uses_strings(const Ec *e)
{
	if (e->l->nstring || e->l->nslots[T_STRING])
		return true;
	for (int i = 0; i < e->ninners; i++)
		if (e->inners[i].n[0][T_STRING] || e->inners[i].n[1][T_STRING])
			return true;
	for (int i = 0; i < e->nfields; i++)
		if (e->fields[i].decl->type == TY_STRING)
			return true;
	return false;
}

/* A String's start value must fit the runtime's String (SART_STRING_CAP, 1024 bytes with
 * its NUL, unless the build raises it): the error names the variable rather than the
 * wrapper failing at instantiation. */
void ec_check_string_starts(Ec *e)
{
	for (int i = 0; i < e->l->nvars; i++) {
		const EmitVar *v = &e->l->vars[i];
		size_t n = v->type == TY_STRING && v->has_start && v->start.s ? strlen(v->start.s) : 0;
		if (n > 1023)
			ec_error(e, v->decl ? v->decl->loc : e->l->sa->loc, "the start value of '%s' is a "
			      "String of %lu bytes, longer than a wrapper's String (1023 bytes)", v->name,
			      (unsigned long)n);
	}
}
