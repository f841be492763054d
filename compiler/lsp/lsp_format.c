/* lsp_format.c — textDocument/formatting: the document in the canonical layout (see lsp.h). */
#include "lsp.h"

bool lsp_format(StrBuf *sb, const LspDoc *d, const char **why)
{
	(void)sb;
	(void)d;
	*why = "formatting is not available yet";
	return false;
}
