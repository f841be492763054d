/* sa_lexer.re — the lexer of the adaptation language (LANGUAGE.md section 1).
 *
 * re2c turns this into generated/sa_lexer.c.  The input is one NUL-terminated buffer;
 * the NUL is the sentinel, so no bounds checks are needed in the automaton, and a NUL
 * before the end is reported as a stray byte.  Comments and strings are scanned by hand
 * so that an unterminated one is reported where it starts.  Every token carries its
 * file:line:column. */
#include <string.h>

#include "parse.h"
#include "sa_grammar.h"

void lex_init(Lexer *lx, const char *file, const char *text, size_t len, DiagSink *d)
{
	memset(lx, 0, sizeof *lx);
	lx->file = file;
	lx->buf = text;
	lx->cur = text;
	lx->lim = text + len;
	lx->line_start = text;
	lx->line = 1;
	lx->diag = d;
}

static Loc here(const Lexer *lx, const char *start, const char *end)
{
	return (Loc){lx->file, lx->line, (int)(start - lx->line_start) + 1, (int)(end - start)};
}

static void lex_error(Lexer *lx, Loc loc, const char *msg)
{
	lx->errors++;
	diag_error(lx->diag, loc, "%s", msg);
}

/* Skips a block comment whose opening the automaton has just consumed. */
static void skip_block_comment(Lexer *lx)
{
	Loc start = here(lx, lx->tok, lx->cur);
	while (lx->cur < lx->lim) {
		if (lx->cur[0] == '*' && lx->cur + 1 < lx->lim && lx->cur[1] == '/') {
			lx->cur += 2;
			return;
		}
		if (*lx->cur++ == '\n') {
			lx->line++;
			lx->line_start = lx->cur;
		}
	}
	lex_error(lx, start, "unterminated comment");
}

/* Scans a string literal whose opening quote was just consumed.  Returns 1 when it is
 * properly closed on the same line. */
static int scan_string(Lexer *lx, char quote)
{
	while (lx->cur < lx->lim) {
		char c = *lx->cur;
		if (c == quote) {
			lx->cur++;
			return 1;
		}
		if (c == '\n')
			break;
		if (c == '\0') /* would cut the value short: report it as anywhere else */
			lex_error(lx, here(lx, lx->cur, lx->cur + 1), "stray NUL byte in source");
		if (c == '\\' && lx->cur + 1 < lx->lim && lx->cur[1] != '\n' && lx->cur[1] != '\0')
			lx->cur++;
		lx->cur++;
	}
	lex_error(lx, here(lx, lx->tok, lx->tok + 1), "missing terminating quote");
	return 0;
}

int lex_next(Lexer *lx, Token *t)
{
#define TOK(code) (t->s = lx->tok, t->n = (int)(lx->cur - lx->tok), \
		   t->loc = here(lx, lx->tok, lx->cur), (code))
	for (;;) {
		lx->tok = lx->cur;
		/*!re2c
		re2c:define:YYCTYPE = "unsigned char";
		re2c:define:YYCURSOR = "lx->cur";
		re2c:define:YYMARKER = "lx->marker";
		re2c:define:YYCTXMARKER = "lx->ctxmarker";
		re2c:yyfill:enable = 0;
		re2c:flags:tags = 0;

		digits = [0-9]+;
		exponent = [eE] [+-]? digits;
		real = digits "." digits? exponent? | "." digits exponent? | digits exponent;
		id = [a-zA-Z_] [a-zA-Z0-9_]*;

		"\x00" {
			if (lx->cur > lx->lim) {
				lx->cur = lx->lim;
				t->s = lx->lim;
				t->n = 0;
				t->loc = here(lx, lx->lim, lx->lim);
				return 0;
			}
			lex_error(lx, here(lx, lx->tok, lx->cur), "stray NUL byte in source");
			continue;
		}
		[ \t\r\v\f]+ { continue; }
		"\n" { lx->line++; lx->line_start = lx->cur; continue; }
		"//" [^\n\x00]* { continue; }
		"/*" { skip_block_comment(lx); continue; }

	"module"                  { return TOK(TK_MODULE); }
	"import"                  { return TOK(TK_IMPORT); }
	"fmu"                     { return TOK(TK_FMU); }
	"inner"                   { return TOK(TK_INNER); }
	"semantic"                { return TOK(TK_SEMANTIC); }
	"adaptation"              { return TOK(TK_ADAPTATION); }
	"at"                      { return TOK(TK_AT); }
	"for"                     { return TOK(TK_FOR); }
	"coupled"                 { return TOK(TK_COUPLED); }
	"as"                      { return TOK(TK_AS); }
	"composed"                { return TOK(TK_COMPOSED); }
	"without"                 { return TOK(TK_WITHOUT); }
	"master"                  { return TOK(TK_MASTER); }
	"reactive"                { return TOK(TK_REACTIVE); }
	"delayed"                 { return TOK(TK_DELAYED); }
	"moore"                   { return TOK(TK_MOORE); }
	"mealy"                   { return TOK(TK_MEALY); }
	"input"                   { return TOK(TK_INPUT); }
	"output"                  { return TOK(TK_OUTPUT); }
	"ports"                   { return TOK(TK_PORTS); }
	"with"                    { return TOK(TK_WITH); }
	"param"                   { return TOK(TK_PARAM); }
	"control"                 { return TOK(TK_CONTROL); }
	"in"                      { return TOK(TK_IN); }
	"out"                     { return TOK(TK_OUT); }
	"var"                     { return TOK(TK_VAR); }
	"rules"                   { return TOK(TK_RULES); }
	"return"                  { return TOK(TK_RETURN); }
	"if"                      { return TOK(TK_IF); }
	"else"                    { return TOK(TK_ELSE); }
	"break"                   { return TOK(TK_BREAK); }
	"true"                    { return TOK(TK_TRUE); }
	"false"                   { return TOK(TK_FALSE); }
	"not"                     { return TOK(TK_NOT); }
	"and"                     { return TOK(TK_AND); }
	"or"                      { return TOK(TK_OR); }
	"otherwise"               { return TOK(TK_OTHERWISE); }
	"Real"                    { return TOK(TK_KW_REAL); }
	"Integer"                 { return TOK(TK_KW_INTEGER); }
	"String"                  { return TOK(TK_KW_STRING); }
	"Bool"                    { return TOK(TK_KW_BOOL); }
	"H"                       { return TOK(TK_KW_BIGH); }
	"h"                       { return TOK(TK_KW_H); }
	"t"                       { return TOK(TK_KW_T); }
	"dt"                      { return TOK(TK_KW_DT); }
	"e"                       { return TOK(TK_KW_E); }
	"MAX"                     { return TOK(TK_KW_MAX); }
	"signal"                  { return TOK(TK_SIGNAL); }
	"now"                     { return TOK(TK_NOW); }
	"prev"                    { return TOK(TK_PREV); }
	"do_step"                 { return TOK(TK_DO_STEP); }
	"save_state"              { return TOK(TK_SAVE_STATE); }
	"rollback"                { return TOK(TK_ROLLBACK); }
	"discard"                 { return TOK(TK_DISCARD); }
	"is_close"                { return TOK(TK_IS_CLOSE); }
	"is_set"                  { return TOK(TK_IS_SET); }
	"get_next_time_step"      { return TOK(TK_GET_NEXT_TIME_STEP); }
	"elapsed"                 { return TOK(TK_ELAPSED); }
	"last_execution_time"     { return TOK(TK_LAST_EXECUTION_TIME); }
	"floor"                   { return TOK(TK_FLOOR); }
	"ceil"                    { return TOK(TK_CEIL); }
	"round"                   { return TOK(TK_ROUND); }
	"max"                     { return TOK(TK_MAX); }
	"min"                     { return TOK(TK_MIN); }
	"abs"                     { return TOK(TK_ABS); }
	"successive"              { return TOK(TK_SUCCESSIVE); }
	"substitution"            { return TOK(TK_SUBSTITUTION); }
	"starts"                  { return TOK(TK_STARTS); }
	"delay"                   { return TOK(TK_DELAY); }
	"multiply"                { return TOK(TK_MULTIPLY); }
	"rate"                    { return TOK(TK_RATE); }
	"times"                   { return TOK(TK_TIMES); }
	"interpolation"           { return TOK(TK_INTERPOLATION); }
	"order"                   { return TOK(TK_ORDER); }
	"no"                      { return TOK(TK_NO); }
	"first"                   { return TOK(TK_FIRST); }
	"second"                  { return TOK(TK_SECOND); }
	"third"                   { return TOK(TK_THIRD); }
	"fourth"                  { return TOK(TK_FOURTH); }
	"zero"                    { return TOK(TK_ZERO); }
	"hold"                    { return TOK(TK_HOLD); }
	"ZOH"                     { return TOK(TK_KW_ZOH); }
	"FOH"                     { return TOK(TK_KW_FOH); }
	"crossing"                { return TOK(TK_CROSSING); }
	"absolute"                { return TOK(TK_ABSOLUTE); }
	"relative"                { return TOK(TK_RELATIVE); }
	"tolerance"               { return TOK(TK_TOLERANCE); }
	"quantize"                { return TOK(TK_QUANTIZE); }
	"every"                   { return TOK(TK_EVERY); }
	"offset"                  { return TOK(TK_OFFSET); }
	"triggered"               { return TOK(TK_TRIGGERED); }
	"by"                      { return TOK(TK_BY); }
	"periodic"                { return TOK(TK_PERIODIC); }
	"multiplied"              { return TOK(TK_MULTIPLIED); }
	"implied"                 { return TOK(TK_IMPLIED); }
	"extract"                 { return TOK(TK_EXTRACT); }
	"directionalderivative"   { return TOK(TK_DIRECTIONALDERIVATIVE); }
	"timederivative"          { return TOK(TK_TIMEDERIVATIVE); }

		"^" id { t->s = lx->tok + 1; t->n = (int)(lx->cur - lx->tok - 1);
		         t->loc = here(lx, lx->tok, lx->cur); return TK_ID; }
		id { return TOK(TK_ID); }
		digits / ".." { return TOK(TK_INT); }
		digits { return TOK(TK_INT); }
		real { return TOK(TK_REAL); }
		["] { if (!scan_string(lx, '"')) continue; return TOK(TK_STRING); }
		['] { if (!scan_string(lx, '\'')) continue; return TOK(TK_STRING); }

		"("   { return TOK(TK_LPAREN); }
		")"   { return TOK(TK_RPAREN); }
		"{"   { return TOK(TK_LBRACE); }
		"}"   { return TOK(TK_RBRACE); }
		"["   { return TOK(TK_LBRACKET); }
		"]"   { return TOK(TK_RBRACKET); }
		","   { return TOK(TK_COMMA); }
		";"   { return TOK(TK_SEMI); }
		"."   { return TOK(TK_DOT); }
		".."  { return TOK(TK_DOTDOT); }
		":="  { return TOK(TK_ASSIGN); }
		"->"  { return TOK(TK_ARROW); }
		"-->" { return TOK(TK_LONGARROW); }
		"<-"  { return TOK(TK_LARROW); }
		"+"   { return TOK(TK_PLUS); }
		"-"   { return TOK(TK_MINUS); }
		"*"   { return TOK(TK_STAR); }
		"/"   { return TOK(TK_SLASH); }
		"<"   { return TOK(TK_LT); }
		"<="  { return TOK(TK_LE); }
		">"   { return TOK(TK_GT); }
		">="  { return TOK(TK_GE); }
		"=="  { return TOK(TK_EQEQ); }
		"!="  { return TOK(TK_NE); }
		">!"  { return TOK(TK_CROSSUP); }
		"<!"  { return TOK(TK_CROSSDOWN); }
		"="   { return TOK(TK_EQ); }
		"^"   { return TOK(TK_CARET); }

		[\x80-\xff]+ {
			lex_error(lx, here(lx, lx->tok, lx->cur),
				  "non-ASCII characters are allowed only in strings and comments");
			continue;
		}
		* {
			Loc loc = here(lx, lx->tok, lx->cur);
			unsigned char c = (unsigned char)*lx->tok;
			if (c >= 0x20 && c < 0x7f)
				diag_error(lx->diag, loc, "unexpected character '%c'", c);
			else
				diag_error(lx->diag, loc, "unexpected byte 0x%02x", c);
			lx->errors++;
			continue;
		}
		*/
	}
#undef TOK
}

/* Token names for messages. */
static const char *const token_names[] = {
	[0] = "end of file",
	[TK_ID] = "identifier",
	[TK_INT] = "integer",
	[TK_REAL] = "real number",
	[TK_STRING] = "string",
	[TK_LPAREN] = "'('", [TK_RPAREN] = "')'", [TK_LBRACE] = "'{'", [TK_RBRACE] = "'}'",
	[TK_LBRACKET] = "'['", [TK_RBRACKET] = "']'", [TK_COMMA] = "','", [TK_SEMI] = "';'",
	[TK_DOT] = "'.'", [TK_DOTDOT] = "'..'", [TK_ASSIGN] = "':='", [TK_ARROW] = "'->'",
	[TK_LONGARROW] = "'-->'", [TK_LARROW] = "'<-'", [TK_PLUS] = "'+'", [TK_MINUS] = "'-'",
	[TK_STAR] = "'*'", [TK_SLASH] = "'/'", [TK_LT] = "'<'", [TK_LE] = "'<='",
	[TK_GT] = "'>'", [TK_GE] = "'>='", [TK_EQEQ] = "'=='", [TK_NE] = "'!='",
	[TK_CROSSUP] = "'>!'", [TK_CROSSDOWN] = "'<!'", [TK_EQ] = "'='", [TK_CARET] = "'^'",
	[TK_MODULE] = "'module'",
	[TK_IMPORT] = "'import'",
	[TK_FMU] = "'fmu'",
	[TK_INNER] = "'inner'",
	[TK_SEMANTIC] = "'semantic'",
	[TK_ADAPTATION] = "'adaptation'",
	[TK_AT] = "'at'",
	[TK_FOR] = "'for'",
	[TK_COUPLED] = "'coupled'",
	[TK_AS] = "'as'",
	[TK_COMPOSED] = "'composed'",
	[TK_WITHOUT] = "'without'",
	[TK_MASTER] = "'master'",
	[TK_REACTIVE] = "'reactive'",
	[TK_DELAYED] = "'delayed'",
	[TK_MOORE] = "'moore'",
	[TK_MEALY] = "'mealy'",
	[TK_INPUT] = "'input'",
	[TK_OUTPUT] = "'output'",
	[TK_PORTS] = "'ports'",
	[TK_WITH] = "'with'",
	[TK_PARAM] = "'param'",
	[TK_CONTROL] = "'control'",
	[TK_IN] = "'in'",
	[TK_OUT] = "'out'",
	[TK_VAR] = "'var'",
	[TK_RULES] = "'rules'",
	[TK_RETURN] = "'return'",
	[TK_IF] = "'if'",
	[TK_ELSE] = "'else'",
	[TK_BREAK] = "'break'",
	[TK_TRUE] = "'true'",
	[TK_FALSE] = "'false'",
	[TK_NOT] = "'not'",
	[TK_AND] = "'and'",
	[TK_OR] = "'or'",
	[TK_OTHERWISE] = "'otherwise'",
	[TK_KW_REAL] = "'Real'",
	[TK_KW_INTEGER] = "'Integer'",
	[TK_KW_STRING] = "'String'",
	[TK_KW_BOOL] = "'Bool'",
	[TK_KW_BIGH] = "'H'",
	[TK_KW_H] = "'h'",
	[TK_KW_T] = "'t'",
	[TK_KW_DT] = "'dt'",
	[TK_KW_E] = "'e'",
	[TK_KW_MAX] = "'MAX'",
	[TK_SIGNAL] = "'signal'",
	[TK_NOW] = "'now'",
	[TK_PREV] = "'prev'",
	[TK_DO_STEP] = "'do_step'",
	[TK_SAVE_STATE] = "'save_state'",
	[TK_ROLLBACK] = "'rollback'",
	[TK_DISCARD] = "'discard'",
	[TK_IS_CLOSE] = "'is_close'",
	[TK_IS_SET] = "'is_set'",
	[TK_GET_NEXT_TIME_STEP] = "'get_next_time_step'",
	[TK_ELAPSED] = "'elapsed'",
	[TK_LAST_EXECUTION_TIME] = "'last_execution_time'",
	[TK_FLOOR] = "'floor'",
	[TK_CEIL] = "'ceil'",
	[TK_ROUND] = "'round'",
	[TK_MAX] = "'max'",
	[TK_MIN] = "'min'",
	[TK_ABS] = "'abs'",
	[TK_SUCCESSIVE] = "'successive'",
	[TK_SUBSTITUTION] = "'substitution'",
	[TK_STARTS] = "'starts'",
	[TK_DELAY] = "'delay'",
	[TK_MULTIPLY] = "'multiply'",
	[TK_RATE] = "'rate'",
	[TK_TIMES] = "'times'",
	[TK_INTERPOLATION] = "'interpolation'",
	[TK_ORDER] = "'order'",
	[TK_NO] = "'no'",
	[TK_FIRST] = "'first'",
	[TK_SECOND] = "'second'",
	[TK_THIRD] = "'third'",
	[TK_FOURTH] = "'fourth'",
	[TK_ZERO] = "'zero'",
	[TK_HOLD] = "'hold'",
	[TK_KW_ZOH] = "'ZOH'",
	[TK_KW_FOH] = "'FOH'",
	[TK_CROSSING] = "'crossing'",
	[TK_ABSOLUTE] = "'absolute'",
	[TK_RELATIVE] = "'relative'",
	[TK_TOLERANCE] = "'tolerance'",
	[TK_QUANTIZE] = "'quantize'",
	[TK_EVERY] = "'every'",
	[TK_OFFSET] = "'offset'",
	[TK_TRIGGERED] = "'triggered'",
	[TK_BY] = "'by'",
	[TK_PERIODIC] = "'periodic'",
	[TK_MULTIPLIED] = "'multiplied'",
	[TK_IMPLIED] = "'implied'",
	[TK_EXTRACT] = "'extract'",
	[TK_DIRECTIONALDERIVATIVE] = "'directionalderivative'",
	[TK_TIMEDERIVATIVE] = "'timederivative'",
};

const char *lex_token_name(int code)
{
	if (code < 0 || (size_t)code >= sizeof token_names / sizeof token_names[0] ||
	    !token_names[code])
		return "token";
	return token_names[code];
}
