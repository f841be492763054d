/* sim_types.c — the model description's types as the master and the seam see them
 * (sim_types.h). */
#include "sim_types.h"

#include <stdlib.h>
#include <string.h>

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	     : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int sim_hex_decode(const char *text, unsigned char **out, size_t *size)
{
	size_t n = strlen(text);
	*out = NULL;
	*size = 0;
	if (n % 2)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (hex_digit(text[i]) < 0)
			return -1;
	unsigned char *b = malloc(n / 2 + 1);
	if (!b)
		return 1;
	for (size_t i = 0; i < n / 2; i++)
		b[i] = (unsigned char)(hex_digit(text[2 * i]) * 16 + hex_digit(text[2 * i + 1]));
	*out = b;
	*size = n / 2;
	return 0;
}

SartType sim_sart_type(const FmuVar *v)
{
	if (v->ndims > 0)
		return SART_OTHER;
	switch (v->type) {
	case FT_REAL:
	case FT_FLOAT32: return SART_REAL;
	case FT_INTEGER: case FT_INT8: case FT_UINT8: case FT_INT16: case FT_UINT16:
	case FT_UINT32: case FT_INT64: case FT_UINT64:
	case FT_ENUMERATION: return SART_INTEGER;
	case FT_BOOLEAN: return SART_BOOLEAN;
	case FT_CLOCK: return SART_INTEGER; /* its ticks (SartVar.is_clock) */
	default: return SART_OTHER;
	}
}

/* The seam's value type of an FMI 3.0 variable; Float64 (the default) when none other. */
static SartValueType value_type(FmuType t)
{
	switch (t) {
	case FT_FLOAT32: return SART_VT_FLOAT32;
	case FT_INTEGER: return SART_VT_INT32;
	case FT_INT8: return SART_VT_INT8;
	case FT_UINT8: return SART_VT_UINT8;
	case FT_INT16: return SART_VT_INT16;
	case FT_UINT16: return SART_VT_UINT16;
	case FT_UINT32: return SART_VT_UINT32;
	case FT_INT64:
	case FT_ENUMERATION: return SART_VT_INT64; /* FMI 3.0 enumerations are Int64 values */
	case FT_UINT64: return SART_VT_UINT64;
	default: return SART_VT_FLOAT64;
	}
}

int sim_vr_types(const FmuInfo *info, SartVrType **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (info->version != FMI_V3)
		return 0;
	SartVrType *t = calloc((size_t)info->nvars + 1, sizeof *t);
	if (!t)
		return 1;
	for (int i = 0; i < info->nvars; i++) {
		const FmuVar *v = &info->vars[i];
		SartValueType vt = value_type(v->type);
		/* an array's elements are exchanged through it: listed whatever its type, so
		 * that the seam's messages can name it */
		bool array = v->ndims > 0 && v->nelems > 0 &&
		             (v->type == FT_REAL || v->type == FT_FLOAT32 || v->type == FT_INTEGER ||
		              (v->type >= FT_INT8 && v->type <= FT_UINT64) ||
		              v->type == FT_ENUMERATION);
		if (!array && (sim_sart_type(v) == SART_OTHER || v->type == FT_CLOCK ||
		               vt == SART_VT_FLOAT64 || vt == SART_VT_INT32))
			continue;
		t[(*n)++] = (SartVrType){v->vr, vt, v->name};
	}
	*out = t;
	return 0;
}

unsigned sim_caps(const FmuInfo *in, bool me)
{
	/* Scheduled Execution: partitions activated by the seam at their ticks; only its own
	 * element's state handling applies */
	if (fmu_se_by_default(in))
		return SART_CAP_SCHEDULED_EXECUTION |
		       (in->se.can_get_and_set_fmu_state ? SART_CAP_GET_SET_STATE : 0u) |
		       (in->se.can_serialize_fmu_state ? SART_CAP_SERIALIZE : 0u) |
		       (in->se.can_be_instantiated_only_once_per_process || in->se.needs_execution_tool
		                ? SART_CAP_SERIAL
		                : 0u);
	/* Integrated by the seam, a Model Exchange FMU steps as a Co-Simulation one that
	 * takes its inputs at the step's start: none of the Co-Simulation element's abilities
	 * apply, only the state handling of its own element. */
	if (me)
		return SART_CAP_MODEL_EXCHANGE | (in->nclocks > 0 ? SART_CAP_CLOCKS : 0u) |
		       (in->me.can_get_and_set_fmu_state ? SART_CAP_GET_SET_STATE : 0u) |
		       (in->me.can_serialize_fmu_state ? SART_CAP_SERIALIZE : 0u) |
		       (in->me.can_be_instantiated_only_once_per_process ||
		                        in->me.needs_execution_tool
		                ? SART_CAP_SERIAL
		                : 0u);
	return (in->can_get_and_set_fmu_state ? SART_CAP_GET_SET_STATE : 0u) |
	       (in->can_serialize_fmu_state ? SART_CAP_SERIALIZE : 0u) |
	       /* FMI 3.0 has no input derivatives, whatever a description claims */
	       (in->version == FMI_V2 && in->can_interpolate_inputs ? SART_CAP_INPUT_DERIVATIVES
	                                                             : 0u) |
	       (in->max_output_derivative_order >= 1 ? SART_CAP_OUTPUT_DERIVATIVES : 0u) |
	       (in->version == FMI_V3 && in->is_reactive ? SART_CAP_REACTIVE : 0u) |
	       (in->version == FMI_V3 && in->has_event_mode ? SART_CAP_EVENT_MODE : 0u) |
	       (in->version == FMI_V3 && in->might_return_early_from_do_step
	                ? SART_CAP_EARLY_RETURN
	                : 0u) |
	       (fmu_cs_clocks(in) ? SART_CAP_CLOCKS : 0u) |
	       /* an FMU with process-wide state, or one that drives an outside tool, is
	        * stepped on the calling thread only (`--threads`) */
	       (in->can_be_instantiated_only_once_per_process || in->needs_execution_tool
	                ? SART_CAP_SERIAL
	                : 0u);
}

const char *sim_unsupported(const FmuVar *v, char *buf, size_t size)
{
	const char *why = fmu_var_unsupported(v, buf, size);
	if (why || sim_sart_type(v) != SART_OTHER)
		return why;
	snprintf(buf, size, "a %s", fmu_type_name(v->type));
	return buf;
}

