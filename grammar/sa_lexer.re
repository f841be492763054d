/* sa_lexer.re — the lexer of the adaptation language (docs/language.md, section 1).
 *
 * re2c turns this into generated/sa_lexer.c.  The input is one NUL-terminated buffer;
 * the NUL is the sentinel, so no bounds checks are needed in the automaton, and a NUL
 * before the end is reported as a stray byte.  Comments and strings are scanned by hand
 * so that an unterminated one is reported where it starts.  A reserved word is an
 * identifier first; keyword() then tells which word it is, with an automaton of its own.
 * Every token carries its file:line:column. */
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

/* Hands the comment lx->tok..lx->cur, which starts at start, to whoever asked for
 * comments (the formatter). */
static void note_comment(Lexer *lx, Loc start)
{
	if (!lx->on_comment)
		return;
	start.len = (int)(lx->cur - lx->tok);
	lx->on_comment(lx->comment_ctx, lx->tok, (int)(lx->cur - lx->tok), start);
}

/* Skips a block comment whose opening the automaton has just consumed. */
static void skip_block_comment(Lexer *lx)
{
	Loc start = here(lx, lx->tok, lx->cur);
	while (lx->cur < lx->lim) {
		if (lx->cur[0] == '*' && lx->cur + 1 < lx->lim && lx->cur[1] == '/') {
			lx->cur += 2;
			note_comment(lx, start);
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

/* code when the reserved word just matched ends where the identifier ends; a word that
 * is only a prefix of the identifier ("in" of "input_x") leaves it an identifier. */
static int whole_word(const char *cur, const char *end, int code)
{
	return cur == end ? code : TK_ID;
}

/* The code of the reserved word that the identifier s..end is, else TK_ID.  The identifier
 * is followed by a byte that cannot continue it (at worst the NUL sentinel), so the
 * automaton never reads past the buffer. */
static int keyword(const char *s, const char *end)
{
	const char *cur = s, *marker = s;
	(void)marker;
	/*!re2c
	re2c:define:YYCTYPE = "unsigned char";
	re2c:define:YYCURSOR = "cur";
	re2c:define:YYMARKER = "marker";
	re2c:yyfill:enable = 0;
	re2c:flags:tags = 0;

	"module"                  { return whole_word(cur, end, TK_MODULE); }
	"import"                  { return whole_word(cur, end, TK_IMPORT); }
	"fmu"                     { return whole_word(cur, end, TK_FMU); }
	"inner"                   { return whole_word(cur, end, TK_INNER); }
	"semantic"                { return whole_word(cur, end, TK_SEMANTIC); }
	"adaptation"              { return whole_word(cur, end, TK_ADAPTATION); }
	"at"                      { return whole_word(cur, end, TK_AT); }
	"for"                     { return whole_word(cur, end, TK_FOR); }
	"coupled"                 { return whole_word(cur, end, TK_COUPLED); }
	"as"                      { return whole_word(cur, end, TK_AS); }
	"composed"                { return whole_word(cur, end, TK_COMPOSED); }
	"without"                 { return whole_word(cur, end, TK_WITHOUT); }
	"master"                  { return whole_word(cur, end, TK_MASTER); }
	"reactive"                { return whole_word(cur, end, TK_REACTIVE); }
	"delayed"                 { return whole_word(cur, end, TK_DELAYED); }
	"moore"                   { return whole_word(cur, end, TK_MOORE); }
	"mealy"                   { return whole_word(cur, end, TK_MEALY); }
	"input"                   { return whole_word(cur, end, TK_INPUT); }
	"output"                  { return whole_word(cur, end, TK_OUTPUT); }
	"ports"                   { return whole_word(cur, end, TK_PORTS); }
	"with"                    { return whole_word(cur, end, TK_WITH); }
	"param"                   { return whole_word(cur, end, TK_PARAM); }
	"control"                 { return whole_word(cur, end, TK_CONTROL); }
	"in"                      { return whole_word(cur, end, TK_IN); }
	"out"                     { return whole_word(cur, end, TK_OUT); }
	"var"                     { return whole_word(cur, end, TK_VAR); }
	"rules"                   { return whole_word(cur, end, TK_RULES); }
	"return"                  { return whole_word(cur, end, TK_RETURN); }
	"if"                      { return whole_word(cur, end, TK_IF); }
	"else"                    { return whole_word(cur, end, TK_ELSE); }
	"break"                   { return whole_word(cur, end, TK_BREAK); }
	"true"                    { return whole_word(cur, end, TK_TRUE); }
	"false"                   { return whole_word(cur, end, TK_FALSE); }
	"not"                     { return whole_word(cur, end, TK_NOT); }
	"and"                     { return whole_word(cur, end, TK_AND); }
	"or"                      { return whole_word(cur, end, TK_OR); }
	"otherwise"               { return whole_word(cur, end, TK_OTHERWISE); }
	"Real"                    { return whole_word(cur, end, TK_KW_REAL); }
	"Integer"                 { return whole_word(cur, end, TK_KW_INTEGER); }
	"String"                  { return whole_word(cur, end, TK_KW_STRING); }
	"Bool"                    { return whole_word(cur, end, TK_KW_BOOL); }
	"H"                       { return whole_word(cur, end, TK_KW_BIGH); }
	"h"                       { return whole_word(cur, end, TK_KW_H); }
	"t"                       { return whole_word(cur, end, TK_KW_T); }
	"dt"                      { return whole_word(cur, end, TK_KW_DT); }
	"e"                       { return whole_word(cur, end, TK_KW_E); }
	"MAX"                     { return whole_word(cur, end, TK_KW_MAX); }
	"signal"                  { return whole_word(cur, end, TK_SIGNAL); }
	"now"                     { return whole_word(cur, end, TK_NOW); }
	"prev"                    { return whole_word(cur, end, TK_PREV); }
	"do_step"                 { return whole_word(cur, end, TK_DO_STEP); }
	"save_state"              { return whole_word(cur, end, TK_SAVE_STATE); }
	"rollback"                { return whole_word(cur, end, TK_ROLLBACK); }
	"discard"                 { return whole_word(cur, end, TK_DISCARD); }
	"is_close"                { return whole_word(cur, end, TK_IS_CLOSE); }
	"is_set"                  { return whole_word(cur, end, TK_IS_SET); }
	"get_next_time_step"      { return whole_word(cur, end, TK_GET_NEXT_TIME_STEP); }
	"elapsed"                 { return whole_word(cur, end, TK_ELAPSED); }
	"last_execution_time"     { return whole_word(cur, end, TK_LAST_EXECUTION_TIME); }
	"floor"                   { return whole_word(cur, end, TK_FLOOR); }
	"ceil"                    { return whole_word(cur, end, TK_CEIL); }
	"round"                   { return whole_word(cur, end, TK_ROUND); }
	"max"                     { return whole_word(cur, end, TK_MAX); }
	"min"                     { return whole_word(cur, end, TK_MIN); }
	"abs"                     { return whole_word(cur, end, TK_ABS); }
	"successive"              { return whole_word(cur, end, TK_SUCCESSIVE); }
	"substitution"            { return whole_word(cur, end, TK_SUBSTITUTION); }
	"starts"                  { return whole_word(cur, end, TK_STARTS); }
	"delay"                   { return whole_word(cur, end, TK_DELAY); }
	"multiply"                { return whole_word(cur, end, TK_MULTIPLY); }
	"rate"                    { return whole_word(cur, end, TK_RATE); }
	"times"                   { return whole_word(cur, end, TK_TIMES); }
	"interpolation"           { return whole_word(cur, end, TK_INTERPOLATION); }
	"order"                   { return whole_word(cur, end, TK_ORDER); }
	"no"                      { return whole_word(cur, end, TK_NO); }
	"first"                   { return whole_word(cur, end, TK_FIRST); }
	"second"                  { return whole_word(cur, end, TK_SECOND); }
	"third"                   { return whole_word(cur, end, TK_THIRD); }
	"fourth"                  { return whole_word(cur, end, TK_FOURTH); }
	"zero"                    { return whole_word(cur, end, TK_ZERO); }
	"hold"                    { return whole_word(cur, end, TK_HOLD); }
	"ZOH"                     { return whole_word(cur, end, TK_KW_ZOH); }
	"FOH"                     { return whole_word(cur, end, TK_KW_FOH); }
	"crossing"                { return whole_word(cur, end, TK_CROSSING); }
	"absolute"                { return whole_word(cur, end, TK_ABSOLUTE); }
	"relative"                { return whole_word(cur, end, TK_RELATIVE); }
	"tolerance"               { return whole_word(cur, end, TK_TOLERANCE); }
	"quantize"                { return whole_word(cur, end, TK_QUANTIZE); }
	"every"                   { return whole_word(cur, end, TK_EVERY); }
	"offset"                  { return whole_word(cur, end, TK_OFFSET); }
	"triggered"               { return whole_word(cur, end, TK_TRIGGERED); }
	"by"                      { return whole_word(cur, end, TK_BY); }
	"periodic"                { return whole_word(cur, end, TK_PERIODIC); }
	"multiplied"              { return whole_word(cur, end, TK_MULTIPLIED); }
	"implied"                 { return whole_word(cur, end, TK_IMPLIED); }
	"extract"                 { return whole_word(cur, end, TK_EXTRACT); }
	"directionalderivative"   { return whole_word(cur, end, TK_DIRECTIONALDERIVATIVE); }
	"timederivative"          { return whole_word(cur, end, TK_TIMEDERIVATIVE); }
	* { return TK_ID; }
	*/
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
		"//" [^\n\x00]* { note_comment(lx, here(lx, lx->tok, lx->cur)); continue; }
		"/*" { skip_block_comment(lx); continue; }

		"^" id { t->s = lx->tok + 1; t->n = (int)(lx->cur - lx->tok - 1);
		         t->loc = here(lx, lx->tok, lx->cur); return TK_ID; }
		id { return TOK(keyword(lx->tok, lx->cur)); }
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
