/* sa_grammar.y — the grammar of the adaptation language (docs/language.md, sections 14 and 17).
 *
 * Lemon turns this into generated/sa_grammar.c.  The parser is pushed tokens by
 * parse_source (compiler/front/parse.c); its context travels in %extra_context, so there are
 * no globals.  Actions only build nodes; every decision about meaning is the checker's.
 * Each nonterminal carries the production it implements in the notation of docs/language.md, section 17. */

%name SaParse
%token_prefix TK_
%token_type {Token}
%default_type {Node *}
%extra_context {ParseCtx *ctx}
%stack_size 4000

%include {
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define A (ctx->arena)
#define NEW(kind, loc) ast_new(A, kind, loc)

static void syntax_error(ParseCtx *ctx, int major, Token tok, const int *expected, int nexpected,
			 bool semi_ok);
static Node *mk_int(ParseCtx *ctx, Token t, int negative);
static Node *mk_real(ParseCtx *ctx, Token t, int negative);
static int fmi_clause(ParseCtx *ctx, Token word, Token version);
static int isolated_word(ParseCtx *ctx, Token word);
static Node *mk_model_exchange(ParseCtx *ctx, Token with, Token model, Token exchange);
static Node *mk_adaptation(ParseCtx *ctx, Node *head, NodeList inners, NodeList coupling,
			   NodeList in, NodeList out, NodeList params, NodeList general,
			   Node *control, NodeList in_part, NodeList out_part);
static Node *mk_inner(ParseCtx *ctx, Token for_tok, int kind, Token type, Token name,
		      Node *path, NodeList withs);
static NodeList add_general(ParseCtx *ctx, NodeList l, Node *g);
static int deriv_flag_merge(ParseCtx *ctx, int flags, int flag, Token t);
}

%syntax_error {
	/* The tokens the parser could shift in the state where it stopped: what it expected. */
	int expected[8], nexpected = 0;
	for (int tk = 1; tk < YYNTOKEN && nexpected <= 6; tk++) {
		YYACTIONTYPE act = yy_find_shift_action((YYCODETYPE)tk, yypParser->yytos->stateno);
		if (act <= YY_MAX_SHIFTREDUCE)
			expected[nexpected++] = tk;
	}
	/* Whether a ';' would have been taken here (shifted, or the lookahead of a reduction). */
	YYACTIONTYPE semi = yy_find_shift_action(TK_SEMI, yypParser->yytos->stateno);
	bool semi_ok = semi <= YY_MAX_SHIFTREDUCE || (semi >= YY_MIN_REDUCE && semi <= YY_MAX_REDUCE);
	syntax_error(ctx, yymajor, yyminor, expected, nexpected, semi_ok);
}
%stack_overflow {
	diag_error(ctx->diag, (Loc){ctx->file, 0, 0, 0}, "nesting too deep for the parser");
	ctx->failed = 1;
}
%parse_failure { ctx->failed = 1; }

/* Token order is fixed here so generated codes stay stable. */
%token ID INT REAL STRING.
%token MODULE IMPORT FMU INNER SEMANTIC ADAPTATION AT FOR COUPLED AS COMPOSED WITHOUT MASTER
       REACTIVE DELAYED MOORE MEALY INPUT OUTPUT PORTS WITH PARAM CONTROL IN OUT VAR RULES
       RETURN IF ELSE BREAK TRUE FALSE NOT AND OR OTHERWISE KW_REAL KW_INTEGER KW_STRING
       KW_BOOL KW_BIGH KW_H KW_T KW_DT KW_E KW_MAX SIGNAL NOW PREV DO_STEP SAVE_STATE ROLLBACK
       DISCARD IS_CLOSE IS_SET GET_NEXT_TIME_STEP ELAPSED LAST_EXECUTION_TIME FLOOR CEIL ROUND
       MAX MIN ABS SUCCESSIVE SUBSTITUTION STARTS DELAY MULTIPLY RATE TIMES INTERPOLATION ORDER
       NO FIRST SECOND THIRD FOURTH ZERO HOLD KW_ZOH KW_FOH CROSSING ABSOLUTE RELATIVE
       TOLERANCE QUANTIZE EVERY OFFSET TRIGGERED BY PERIODIC MULTIPLIED IMPLIED EXTRACT
       DIRECTIONALDERIVATIVE TIMEDERIVATIVE.
%token LPAREN RPAREN LBRACE RBRACE LBRACKET RBRACKET COMMA SEMI DOT DOTDOT ASSIGN ARROW
       LONGARROW LARROW PLUS MINUS STAR SLASH LT LE GT GE EQEQ NE CROSSUP CROSSDOWN EQ CARET.

/* After an inner FMU, a `with` always continues that FMU's clauses (see inner). */
%nonassoc INNER_END.
%nonassoc WITH.

%type file {int}
%type kind {int}
%type rd_opt {int}
%type mm_opt {int}
%type type_opt {int}
%type deriv_flags {int}
%type interp_order {int}
%type imports {NodeList}
%type elements {NodeList}
%type idlist {NodeList}
%type inners {NodeList}
%type with_items {NodeList}
%type coupling_opt {NodeList}
%type connlist {NodeList}
%type ports_in_opt {NodeList}
%type ports_out_opt {NodeList}
%type portlist {NodeList}
%type literal_list {NodeList}
%type params {NodeList}
%type param_items {NodeList}
%type general_rules {NodeList}
%type port_refs {NodeList}
%type settings {NodeList}
%type cond_settings_opt {NodeList}
%type rule_settings_opt {NodeList}
%type setting_groups {NodeList}
%type ctrl_vars {NodeList}
%type in_vars {NodeList}
%type out_vars {NodeList}
%type in_part_opt {NodeList}
%type out_part_opt {NodeList}
%type block_vars {NodeList}
%type data_rules {NodeList}
%type stmts {NodeList}
%type var_items {NodeList}
%type exprlist {NodeList}
%type quant_zones {NodeList}
%type module_opt {Token}
%type name2_opt {Token}
%type without_opt {int}

%start_symbol file

/* file = import* ('module' ID)? element* */
file ::= imports(I) module_opt(M) elements(E). {
	Loc start = {ctx->file, 1, 1, 0};
	Node *f = NEW(ND_FILE, start);
	f->str = ctx->file;
	f->name = M.s ? tok_str(ctx, M) : NULL;
	f->list1 = I.head;
	f->list2 = E.head;
	ctx->root = f;
}

imports(L) ::= . { L = (NodeList){0}; }
/* import = 'import' ID */
imports(L) ::= imports(P) IMPORT(K) ID(N). {
	Node *n = NEW(ND_IMPORT, loc_span(K.loc, N.loc));
	n->name = tok_str(ctx, N);
	L = nl_add(P, n);
}

module_opt(M) ::= . { M = (Token){0}; }
module_opt(M) ::= MODULE ID(N). { M = N; }

elements(L) ::= . { L = (NodeList){0}; }
elements(L) ::= elements(P) element(E). { L = nl_add(P, E); }

/* element = adaptation | fmu_decl | connection */
element(E) ::= adaptation(X). { E = X; }
element(E) ::= fmu_decl(X). { E = X; }
element(E) ::= connection(X). { E = X; }

/* fmu_decl = 'fmu' ID ID 'at' STRING ('composed' 'of' ID,+)? ports_in? ports_out? */
fmu_decl(F) ::= FMU(K) ID(T) ID(N) AT STRING(P) composed_opt(C) ports_in_opt(I) ports_out_opt(O). {
	F = NEW(ND_FMU_DECL, K.loc);
	F->tname = tok_str(ctx, T);
	F->name = tok_str(ctx, N);
	F->str = tok_string_value(ctx, P);
	F->list1 = I.head;
	F->list2 = O.head;
	F->list3 = C;
	F->loc = N.loc;
}
%type composed_opt {Node *}
composed_opt(C) ::= . { C = NULL; }
composed_opt(C) ::= COMPOSED ID(O) idlist(L). {
	if (O.n != 2 || memcmp(O.s, "of", 2) != 0)
		diag_error(ctx->diag, O.loc, "expected 'of' after 'composed'");
	C = L.head;
}

idlist(L) ::= ID(N). { L = nl_one(ast_name(A, N.loc, tok_str(ctx, N))); }
idlist(L) ::= idlist(P) COMMA ID(N). { L = nl_add(P, ast_name(A, N.loc, tok_str(ctx, N))); }

/* connection = port_ref '->' port_ref */
connection(C) ::= port_ref(S) ARROW port_ref(D). {
	C = NEW(ND_CONNECTION, loc_span(S->loc, D->loc));
	C->lhs = S;
	C->rhs = D;
}
/* port_ref = (ID '.')? ID | ID '.' ID '[' INT (',' INT)* ']'
 * The second names one element of an FMU's array, as FMI's structured names write it
 * ("y[2]", "A[1,2]"): a scenario connection may link single elements. */
port_ref(R) ::= ID(N). { R = ast_port_ref(A, N.loc, NULL, tok_str(ctx, N)); }
port_ref(R) ::= ID(O) DOT ID(N). {
	R = ast_port_ref(A, loc_span(O.loc, N.loc), tok_str(ctx, O), tok_str(ctx, N));
}
port_ref(R) ::= ID(O) DOT ID(N) LBRACKET elem_index(I) RBRACKET(K). {
	R = ast_port_ref(A, loc_span(O.loc, K.loc), tok_str(ctx, O),
			 arena_printf(A, "%s[%s]", tok_str(ctx, N), I));
}
%type elem_index {const char *}
elem_index(I) ::= INT(N). { I = arena_printf(A, "%lld", strtoll(tok_str(ctx, N), NULL, 10)); }
elem_index(I) ::= elem_index(P) COMMA INT(N). {
	I = arena_printf(A, "%s,%lld", P, strtoll(tok_str(ctx, N), NULL, 10));
}

/* adaptation = 'semantic' 'adaptation' kind? ID 'at' STRING inner+ coupling? ports_in?
 *              ports_out? param_decl* general_rule* control_part? in_part? out_part? */
adaptation(X) ::= adaptation_head(H) inners(I) coupling_opt(C) ports_in_opt(PI) ports_out_opt(PO)
		  params(PA) general_rules(G) control_opt(CT) in_part_opt(IP) out_part_opt(OP). {
	X = mk_adaptation(ctx, H, I, C, PI, PO, PA, G, CT, IP, OP);
}

%type adaptation_head {Node *}
adaptation_head(H) ::= SEMANTIC(S) ADAPTATION kind(K) ID(N) name2_opt(N2) without_opt(W) AT STRING(P)
			fmi_opt(V). {
	H = NEW(ND_ADAPTATION, N.loc);
	H->flags = K | W;
	H->ival = V;
	if (N2.s) {
		/* The older header form: a type name, then the instance name. */
		H->tname = tok_str(ctx, N);
		H->name = tok_str(ctx, N2);
		H->loc = N2.loc;
		diag_warning(ctx->diag, loc_span(N.loc, N2.loc),
			     "adaptation header names a type and an instance; the type name '%s' "
			     "is ignored and '%s' names the adaptation", H->tname, H->name);
	} else {
		H->name = tok_str(ctx, N);
	}
	H->str = tok_string_value(ctx, P);
	(void)S;
}
name2_opt(N) ::= . { N = (Token){0}; }
name2_opt(N) ::= ID(X). { N = X; }
/* fmi_opt = ('fmi' ('2' | '3' | '2.0' | '3.0'))?  The wrapper's FMI version; 'fmi' is no
 * keyword (a port may be called fmi), only a word in this place. */
%type fmi_opt {int}
fmi_opt(V) ::= . { V = 0; }
fmi_opt(V) ::= ID(K) INT(N). { V = fmi_clause(ctx, K, N); }
fmi_opt(V) ::= ID(K) REAL(N). { V = fmi_clause(ctx, K, N); }
without_opt(W) ::= . { W = 0; }
without_opt(W) ::= WITHOUT MASTER. { W = KIND_WITHOUT_MASTER; }

/* kind = ('reactive' | 'delayed')? ('moore' | 'mealy')? */
kind(K) ::= rd_opt(A1) mm_opt(B1). { K = A1 | B1; }
rd_opt(K) ::= . { K = 0; }
rd_opt(K) ::= REACTIVE. { K = KIND_REACTIVE; }
rd_opt(K) ::= DELAYED. { K = KIND_DELAYED; }
mm_opt(K) ::= . { K = 0; }
mm_opt(K) ::= MOORE. { K = KIND_MOORE; }
mm_opt(K) ::= MEALY. { K = KIND_MEALY; }

inners(L) ::= inner(I). { L = nl_one(I); }
inners(L) ::= inners(P) inner(I). { L = nl_add(P, I); }

/* inner = 'for' 'isolated'? 'inner' 'fmu' kind? ID ID ('at' STRING)?
 *         ('with' 'input' 'ports' port,+)? ('with' 'output' 'ports' port,+)?
 *         ('with' 'param' (type? ID ('[' subscripts ']')? ':=' expr),+)*
 *       | 'for' 'fmu' ID,+
 * Older scripts also write their couplings here, as `with a.p -> b.q`; such items are
 * handed to the adaptation. */
inner(I) ::= FOR(F) INNER FMU kind(K) ID(T) ID(N) at_opt(P) with_items(W). [INNER_END] {
	I = mk_inner(ctx, F, K, T, N, P, W);
}
/* 'isolated': the inner runs out of process in the wrapper (docs/language.md).  Like 'fmi',
 * no keyword (a port may be called isolated), only a word in this place. */
inner(I) ::= FOR(F) ID(X) INNER FMU kind(K) ID(T) ID(N) at_opt(P) with_items(W). [INNER_END] {
	I = mk_inner(ctx, F, K | isolated_word(ctx, X), T, N, P, W);
}
inner(I) ::= FOR(F) FMU idlist(L). {
	I = NULL;
	for (Node *n = L.head, *next; n; n = next) {
		next = n->next;
		n->next = NULL;
		Node *r = NEW(ND_INNER_REF, n->loc);
		r->name = n->name;
		I = ast_append(I, r);
	}
	(void)F;
}
%type at_opt {Node *}
at_opt(P) ::= . { P = NULL; }
at_opt(P) ::= AT STRING(S). { P = ast_string(A, S.loc, tok_string_value(ctx, S)); }

with_items(L) ::= . { L = (NodeList){0}; }
with_items(L) ::= with_items(P) with_item(W). { L = nl_add(P, W); }
%type with_item {Node *}
with_item(W) ::= WITH INPUT(K) PORTS portlist(L). {
	W = NEW(ND_BLOCK, K.loc); W->op = 'i'; W->list1 = L.head;
}
with_item(W) ::= WITH OUTPUT(K) PORTS portlist(L). {
	W = NEW(ND_BLOCK, K.loc); W->op = 'o'; W->list1 = L.head;
}
with_item(W) ::= WITH PARAM(K) bind_items(L). {
	W = NEW(ND_BLOCK, K.loc); W->op = 'p'; W->list1 = L.head;
}
with_item(W) ::= WITH connection(C). { W = C; }
/* 'with' 'model' 'exchange'
 * 'with' me_setting ('and' me_setting)*
 * me_setting = 'solver' '=' ID | 'relative' 'tolerance' '=' literal | 'max' 'step' '=' literal
 * The inner runs as Model Exchange (its only interface, or chosen by the first clause) and
 * the wrapper integrates it within each step, as the second says (docs/language.md).
 * 'model', 'exchange', 'solver' and 'step' are no keywords (a port may be called model),
 * only words in this place. */
with_item(W) ::= WITH(K) ID(M) ID(X). { W = mk_model_exchange(ctx, K, M, X); }
with_item(W) ::= WITH(K) me_settings(S). {
	W = NEW(ND_MODEL_EXCHANGE, K.loc); W->list1 = S.head;
}
with_item(W) ::= WITH(K) deriv_flags(F). {
	W = NEW(ND_DERIV, K.loc); W->op = DERIV_WITH; W->flags = F;
}
with_item(W) ::= WITH(K) interp_order(O). {
	/* Completes the preceding `multiply rate N times` (see add_general). */
	W = NEW(ND_MULTIRATE, K.loc); W->op = O; W->lhs = NULL;
}
with_item(W) ::= WITH(K) INTERPOLATION ID(OF) ORDER INT(N). {
	if (OF.n != 2 || memcmp(OF.s, "of", 2) != 0)
		diag_error(ctx->diag, OF.loc, "expected 'of' in 'interpolation of order'");
	W = NEW(ND_MULTIRATE, K.loc);
	Node *order = mk_int(ctx, N, 0);
	W->op = (int)(order->ival > 1000 ? 1000 : order->ival);
	W->flags = 1;
}

%type me_settings {NodeList}
me_settings(L) ::= me_setting(S). { L = nl_one(S); }
me_settings(L) ::= me_settings(P) AND me_setting(S). { L = nl_add(P, S); }
%type me_setting {Node *}
me_setting(S) ::= ID(K) EQ ID(V). {
	if (K.n != 6 || memcmp(K.s, "solver", 6) != 0)
		diag_error(ctx->diag, K.loc, "expected 'solver', 'relative tolerance' or 'max step' "
			   "in the settings of 'with model exchange'");
	S = NEW(ND_SETTING, K.loc); S->op = SET_ME_SOLVER; S->str = tok_str(ctx, V);
	S->lhs = ast_name(A, V.loc, S->str); /* keeps the value's location */
}
me_setting(S) ::= RELATIVE(K) TOLERANCE EQ port_literal(V). {
	S = NEW(ND_SETTING, K.loc); S->op = SET_REL_TOL; S->lhs = V;
}
me_setting(S) ::= MAX(K) ID(W) EQ port_literal(V). {
	if (W.n != 4 || memcmp(W.s, "step", 4) != 0)
		diag_error(ctx->diag, W.loc, "expected 'max step' in the settings of 'with model "
			   "exchange'");
	S = NEW(ND_SETTING, K.loc); S->op = SET_ME_MAX_STEP; S->lhs = V;
}

/* coupling = 'coupled' 'as' connection,+ */
coupling_opt(L) ::= . { L = (NodeList){0}; }
coupling_opt(L) ::= COUPLED AS connlist(C). { L = C; }
connlist(L) ::= coupling(C). { L = nl_one(C); }
connlist(L) ::= connlist(P) COMMA coupling(C). { L = nl_add(P, C); }

/* coupling = connection ('(' transform,+ ')')?
 * transform = 'factor' port_literal | 'offset' port_literal | 'map' '(' map_entry,+ ')'
 * A coupling's value may be mapped, then scaled and shifted after its unit conversion
 * (section 4 of docs/language.md).  'factor' and 'map' are names, not reserved words;
 * the parentheses keep the list apart from a `with` clause that may follow the couplings. */
%type coupling {Node *}
coupling(C) ::= connection(X). { C = X; }
coupling(C) ::= connection(X) LPAREN transforms(T) RPAREN. {
	C = X;
	for (Node *t = T.head; t; t = t->next) {
		if (t->op == 'f')
			C->then = t->lhs;
		else if (t->op == 'o')
			C->els = t->lhs;
		else
			C->list1 = t->list1;
	}
}
%type transforms {NodeList}
transforms(L) ::= transform(T). { L = nl_one(T); }
transforms(L) ::= transforms(P) COMMA transform(T). { L = nl_add(P, T); }
%type transform {Node *}
transform(T) ::= ID(F) port_literal(V). {
	if (F.n != 6 || memcmp(F.s, "factor", 6) != 0)
		diag_error(ctx->diag, F.loc, "expected 'factor', 'offset' or 'map' in a coupling's "
			   "transformation");
	T = NEW(ND_BLOCK, F.loc); T->op = 'f'; T->lhs = V;
}
transform(T) ::= OFFSET(K) port_literal(V). { T = NEW(ND_BLOCK, K.loc); T->op = 'o'; T->lhs = V; }
transform(T) ::= ID(M) LPAREN map_entries(L) RPAREN. {
	if (M.n != 3 || memcmp(M.s, "map", 3) != 0)
		diag_error(ctx->diag, M.loc, "expected 'factor', 'offset' or 'map' in a coupling's "
			   "transformation");
	T = NEW(ND_BLOCK, M.loc); T->op = 'm'; T->list1 = L.head;
}
%type map_entries {NodeList}
map_entries(L) ::= map_entry(E). { L = nl_one(E); }
map_entries(L) ::= map_entries(P) COMMA map_entry(E). { L = nl_add(P, E); }
%type map_entry {Node *}
map_entry(E) ::= port_literal(F) ARROW port_literal(T). {
	E = NEW(ND_CONNECTION, loc_span(F->loc, T->loc));
	E->lhs = F;
	E->rhs = T;
}

/* ports_in = 'input' 'ports' port,+   ports_out = 'output' 'ports' port,+ */
ports_in_opt(L) ::= . { L = (NodeList){0}; }
ports_in_opt(L) ::= INPUT PORTS portlist(P). { L = P; }
ports_out_opt(L) ::= . { L = (NodeList){0}; }
ports_out_opt(L) ::= OUTPUT PORTS portlist(P). { L = P; }
portlist(L) ::= port(P). { L = nl_one(P); }
portlist(L) ::= portlist(PL) COMMA port(P). { L = nl_add(PL, P); }

/* port = type? ID STRING? (':=' literal_or_array)? ('[' (INT '..')? INT ']')? ('(' unit ')')?
 *        ('->' port_ref | '<-' port_ref)? */
%type port {Node *}
port(P) ::= type_opt(T) ID(N) fmi_name_opt(F) init_opt(I) mult_opt(M) unit_opt(U) bind_opt(B). {
	P = NEW(ND_PORT, N.loc);
	P->type = (SaType)T;
	P->name = tok_str(ctx, N);
	P->str = F;
	P->init = I;
	P->mult_lo = M ? (int)M->lhs->ival : -1;
	P->mult_hi = M ? (int)M->rhs->ival : -1;
	P->unit = U;
	if (B) {
		P->bind_dir = B->op;
		P->bind = B->lhs;
	}
}
%type fmi_name_opt {const char *}
fmi_name_opt(F) ::= . { F = NULL; }
fmi_name_opt(F) ::= STRING(S). { F = tok_string_value(ctx, S); }
%type init_opt {Node *}
init_opt(I) ::= . { I = NULL; }
init_opt(I) ::= ASSIGN port_literal(L). { I = L; }
init_opt(I) ::= ASSIGN LBRACKET(K) literal_list(L) RBRACKET. {
	I = NEW(ND_ARRAY, K.loc); I->list1 = L.head;
}
literal_list(L) ::= port_literal(X). { L = nl_one(X); }
literal_list(L) ::= literal_list(P) COMMA port_literal(X). { L = nl_add(P, X); }
%type mult_opt {Node *}
mult_opt(M) ::= . { M = NULL; }
mult_opt(M) ::= LBRACKET(K) INT(H) RBRACKET. {
	M = NEW(ND_BLOCK, K.loc); M->lhs = ast_int(A, H.loc, 1); M->rhs = mk_int(ctx, H, 0);
}
mult_opt(M) ::= LBRACKET(K) INT(L) DOTDOT INT(H) RBRACKET. {
	M = NEW(ND_BLOCK, K.loc); M->lhs = mk_int(ctx, L, 0); M->rhs = mk_int(ctx, H, 0);
}
%type bind_opt {Node *}
bind_opt(B) ::= . { B = NULL; }
bind_opt(B) ::= ARROW(K) port_ref(R). { B = NEW(ND_BLOCK, K.loc); B->op = BIND_TO; B->lhs = R; }
bind_opt(B) ::= LARROW(K) port_ref(R). { B = NEW(ND_BLOCK, K.loc); B->op = BIND_FROM; B->lhs = R; }

/* type = 'Real' | 'Integer' | 'Bool' | 'String' */
type_opt(T) ::= . { T = TY_NONE; }
type_opt(T) ::= KW_REAL. { T = TY_REAL; }
type_opt(T) ::= KW_INTEGER. { T = TY_INTEGER; }
type_opt(T) ::= KW_BOOL. { T = TY_BOOL; }
type_opt(T) ::= KW_STRING. { T = TY_STRING; }

/* unit = unit_term ('/' unit_term)*;  unit_term = unit_atom ('.' unit_atom)*;
 * unit_atom = ID ('^' '-'? INT)?   The unit's text is rebuilt without blanks. */
%type unit_opt {Node *}
unit_opt(U) ::= . { U = NULL; }
unit_opt(U) ::= LPAREN(L) unit(X) RPAREN(R). {
	U = NEW(ND_UNIT, loc_span(L.loc, R.loc));
	U->str = X;
	U->loc.col += 1;
	U->loc.len = U->loc.len > 2 ? U->loc.len - 2 : 1;
}
%type unit {const char *}
%type unit_term {const char *}
%type unit_atom {const char *}
%type unit_name {Token}
unit(U) ::= unit_term(X). { U = X; }
unit(U) ::= unit(P) SLASH unit_term(X). { U = arena_printf(A, "%s/%s", P, X); }
unit_term(U) ::= unit_atom(X). { U = X; }
unit_term(U) ::= unit_term(P) DOT unit_atom(X). { U = arena_printf(A, "%s.%s", P, X); }
unit_atom(U) ::= unit_name(N). { U = tok_str(ctx, N); }
unit_atom(U) ::= INT(N). { U = tok_str(ctx, N); }
unit_atom(U) ::= unit_name(N) CARET INT(E). { U = arena_printf(A, "%s^%s", tok_str(ctx, N), tok_str(ctx, E)); }
unit_atom(U) ::= unit_name(N) CARET MINUS INT(E). { U = arena_printf(A, "%s^-%s", tok_str(ctx, N), tok_str(ctx, E)); }
/* Unit symbols that are also reserved words: H (henry), h (hour), t (tonne), min. */
unit_name(N) ::= ID(X). { N = X; }
unit_name(N) ::= KW_BIGH(X). { N = X; }
unit_name(N) ::= KW_H(X). { N = X; }
unit_name(N) ::= KW_T(X). { N = X; }
unit_name(N) ::= MIN(X). { N = X; }

/* param_decl = 'param' (type? ID ':=' expr),+ ';' */
params(L) ::= . { L = (NodeList){0}; }
params(L) ::= params(P) PARAM param_items(I) SEMI. { L = nl_cat(P, I); }
param_items(L) ::= param_item(X). { L = nl_one(X); }
param_items(L) ::= param_items(P) COMMA param_item(X). { L = nl_add(P, X); }
%type param_item {Node *}
param_item(D) ::= type_opt(T) ID(N) ASSIGN expr(E). {
	D = NEW(ND_VARDECL, N.loc); D->type = (SaType)T; D->name = tok_str(ctx, N);
	D->init = E; D->op = DECL_PARAM;
}

/* The bindings of an inner's parameters: param_item, or one element of an array parameter,
 * 'type? ID [ subscripts ] := expr' (named "K[2]", "A[1,2]", as the element ports are). */
%type bind_items {NodeList}
bind_items(L) ::= bind_item(X). { L = nl_one(X); }
bind_items(L) ::= bind_items(P) COMMA bind_item(X). { L = nl_add(P, X); }
%type bind_item {Node *}
bind_item(D) ::= param_item(X). { D = X; }
bind_item(D) ::= type_opt(T) ID(N) LBRACKET subscripts(S) RBRACKET(R) ASSIGN expr(E). {
	D = NEW(ND_VARDECL, loc_span(N.loc, R.loc)); D->type = (SaType)T;
	D->name = arena_printf(A, "%s[%s]", tok_str(ctx, N), S);
	D->init = E; D->op = DECL_PARAM;
}

/* general_rule = successive substitution | delay | multiply rate | derivatives (section 7) */
general_rules(L) ::= . { L = (NodeList){0}; }
general_rules(L) ::= general_rules(P) general_rule(G). { L = add_general(ctx, P, G); }
%type general_rule {Node *}
general_rule(G) ::= loop_form(X). { G = X; }
general_rule(G) ::= MULTIPLY(K) RATE arith(N) TIMES. {
	G = NEW(ND_MULTIRATE, K.loc); G->lhs = N; G->op = -1;
}
general_rule(G) ::= with_item(W). { G = W; }
general_rule(G) ::= EXTRACT(K) deriv_flags(F). {
	G = NEW(ND_DERIV, K.loc); G->op = DERIV_EXTRACT; G->flags = F;
}
deriv_flags(F) ::= DIRECTIONALDERIVATIVE(T). { F = DERIV_DIRECTIONAL; (void)T; }
deriv_flags(F) ::= TIMEDERIVATIVE(T). { F = DERIV_TIME; (void)T; }
deriv_flags(F) ::= deriv_flags(P) DIRECTIONALDERIVATIVE(T). { F = deriv_flag_merge(ctx, P, DERIV_DIRECTIONAL, T); }
deriv_flags(F) ::= deriv_flags(P) TIMEDERIVATIVE(T). { F = deriv_flag_merge(ctx, P, DERIV_TIME, T); }

/* (no | first order | ... | fourth order) interpolation */
interp_order(O) ::= NO INTERPOLATION. { O = 0; }
interp_order(O) ::= FIRST ORDER INTERPOLATION. { O = 1; }
interp_order(O) ::= SECOND ORDER INTERPOLATION. { O = 2; }
interp_order(O) ::= THIRD ORDER INTERPOLATION. { O = 3; }
interp_order(O) ::= FOURTH ORDER INTERPOLATION. { O = 4; }

/* 'successive' 'substitution' 'starts' 'at' P ('and' Q)? 'with' setting ('and' setting)*
 * 'delay' 'at' P ('and' Q)? */
%type loop_form {Node *}
loop_form(G) ::= SUCCESSIVE(K) SUBSTITUTION STARTS AT port_refs(P) WITH settings(S). {
	G = NEW(ND_SUBST, K.loc); G->list1 = P.head; G->list2 = S.head;
}
loop_form(G) ::= DELAY(K) AT port_refs(P). { G = NEW(ND_DELAY, K.loc); G->list1 = P.head; }
port_refs(L) ::= port_ref(R). { L = nl_one(R); }
port_refs(L) ::= port_ref(R) AND port_ref(S). { L = nl_add(nl_one(R), S); }
port_refs(L) ::= port_ref(R) COMMA port_ref(S). { L = nl_add(nl_one(R), S); }

/* setting = ('absolute' | 'relative') 'tolerance' '=' expr */
settings(L) ::= setting(S). { L = nl_one(S); }
settings(L) ::= settings(P) AND setting(S). { L = nl_add(P, S); }
%type setting {Node *}
setting(S) ::= ABSOLUTE(K) TOLERANCE EQ arith(E). { S = NEW(ND_SETTING, K.loc); S->op = SET_ABS_TOL; S->lhs = E; }
setting(S) ::= RELATIVE(K) TOLERANCE EQ arith(E). { S = NEW(ND_SETTING, K.loc); S->op = SET_REL_TOL; S->lhs = E; }

/* control_part = ('control' var_decl)* control_rule */
%type control_opt {Node *}
control_opt(C) ::= . { C = NULL; }
control_opt(C) ::= ctrl_vars(V) control_rule(R). {
	/* A carrier node: list1 the control vars, lhs the rule. */
	C = NEW(ND_BLOCK, R->loc); C->list1 = V.head; C->lhs = R;
}
ctrl_vars(L) ::= . { L = (NodeList){0}; }
ctrl_vars(L) ::= ctrl_vars(P) CONTROL var_decl(D). {
	for (Node *v = D->list1; v; v = v->next)
		v->op = DECL_CONTROL;
	L = nl_cat(P, (NodeList){D->list1, ast_last(D->list1)});
}

/* control_rule = 'control' 'rules' '{' stmt* 'return' expr ';' '}' | declarative forms */
%type control_rule {Node *}
control_rule(R) ::= CONTROL(K) RULES LBRACE stmts(S) RETURN(RT) expr(E) SEMI RBRACE. {
	Node *ret = NEW(ND_RETURN, RT.loc); ret->lhs = E;
	R = NEW(ND_CTRL, K.loc);
	R->body = ast_block(A, K.loc, nl_add(S, ret).head);
}
control_rule(R) ::= CONTROL(K) LBRACE stmts(S) RETURN(RT) expr(E) SEMI RBRACE. {
	Node *ret = NEW(ND_RETURN, RT.loc); ret->lhs = E;
	R = NEW(ND_CTRL, K.loc); R->flags = 1;
	R->body = ast_block(A, K.loc, nl_add(S, ret).head);
}
control_rule(R) ::= IMPLIED(K). { R = NEW(ND_CTRL_IMPLIED, K.loc); }
control_rule(R) ::= TRIGGERED(K) BY expr(E). { R = NEW(ND_CTRL_TRIGGERED, K.loc); R->cond = E; }
control_rule(R) ::= PERIODIC(K) EVERY arith(P). { R = NEW(ND_CTRL_PERIODIC, K.loc); R->rhs = P; }
control_rule(R) ::= PERIODIC(K) AT arith(S) EVERY arith(P). {
	R = NEW(ND_CTRL_PERIODIC, K.loc); R->lhs = S; R->rhs = P;
}
control_rule(R) ::= MULTIPLIED(K) arith(N) TIMES. { R = NEW(ND_CTRL_MULTIPLIED, K.loc); R->lhs = N; }

/* in_part = ('in' var_decl)* 'in' 'rules' rule_settings? '{' var_decl* data_rule* '}' */
in_part_opt(L) ::= . { L = (NodeList){0}; }
in_part_opt(L) ::= in_vars(V) IN(K) RULES rule_settings_opt(S) LBRACE block_vars(BV) data_rules(R) RBRACE. {
	Node *rules = NEW(ND_RULES, K.loc);
	rules->op = 'i'; rules->list1 = S.head; rules->list2 = BV.head; rules->list3 = R.head;
	L = nl_add(V, rules); /* the rules node last, the vars before it */
}
in_vars(L) ::= . { L = (NodeList){0}; }
in_vars(L) ::= in_vars(P) IN var_decl(D). {
	for (Node *v = D->list1; v; v = v->next)
		v->op = DECL_IN;
	L = nl_cat(P, (NodeList){D->list1, ast_last(D->list1)});
}
out_part_opt(L) ::= . { L = (NodeList){0}; }
out_part_opt(L) ::= out_vars(V) OUT(K) RULES rule_settings_opt(S) LBRACE block_vars(BV) data_rules(R) RBRACE. {
	Node *rules = NEW(ND_RULES, K.loc);
	rules->op = 'o'; rules->list1 = S.head; rules->list2 = BV.head; rules->list3 = R.head;
	L = nl_add(V, rules);
}
out_vars(L) ::= . { L = (NodeList){0}; }
out_vars(L) ::= out_vars(P) OUT var_decl(D). {
	for (Node *v = D->list1; v; v = v->next)
		v->op = DECL_OUT;
	L = nl_cat(P, (NodeList){D->list1, ast_last(D->list1)});
}
block_vars(L) ::= . { L = (NodeList){0}; }
block_vars(L) ::= block_vars(P) var_decl(D). {
	for (Node *v = D->list1; v; v = v->next)
		v->op = DECL_RULES;
	L = nl_cat(P, (NodeList){D->list1, ast_last(D->list1)});
}

/* rule_settings = 'with' setting_group (',' setting_group)*
 * setting_group = 'crossing' setting ('and' setting)* | output_fn */
rule_settings_opt(L) ::= . { L = (NodeList){0}; }
rule_settings_opt(L) ::= WITH setting_groups(G). { L = G; }
setting_groups(L) ::= setting_group(G). { L = nl_one(G); }
setting_groups(L) ::= setting_groups(P) COMMA setting_group(G). { L = nl_add(P, G); }
%type setting_group {Node *}
setting_group(G) ::= CROSSING(K) settings(S). { G = NEW(ND_CROSSING, K.loc); G->list1 = S.head; }
setting_group(G) ::= output_fn(F). { G = F; }

data_rules(L) ::= . { L = (NodeList){0}; }
data_rules(L) ::= data_rules(P) data_rule(R). { L = nl_add(P, R); }

/* data_rule = condition '->' transition ('-->' output_fn)? ';'
 *           | quantize ('-->' output_fn)? ';' | assignment ('-->' output_fn)? ';'
 *           | loop_rule ';' */
%type data_rule {Node *}
data_rule(R) ::= condition(C) cond_settings_opt(S) ARROW transition(T) outfn_opt(O) SEMI. {
	R = NEW(ND_RULE, C->loc); R->op = RULE_COND;
	R->cond = C; R->list1 = S.head; R->then = T; R->els = O;
}
data_rule(R) ::= quantize(Q) outfn_opt(O) SEMI. {
	R = NEW(ND_RULE, Q->loc); R->op = RULE_QUANTIZE; R->lhs = Q; R->els = O;
}
data_rule(R) ::= assignment(X) outfn_opt(O) SEMI. {
	R = NEW(ND_RULE, X->loc); R->op = RULE_ASSIGN;
	R->then = ast_block(A, X->loc, X); R->els = O;
}
data_rule(R) ::= loop_form(X) SEMI. { R = NEW(ND_RULE, X->loc); R->op = RULE_LOOP; R->lhs = X; }

/* condition = expr (setting ('and' setting)*)? | '{' stmt* 'return' expr ';' '}' */
%type condition {Node *}
condition(C) ::= expr(E). { C = E; }
condition(C) ::= LBRACE(K) stmts(S) RETURN(RT) expr(E) SEMI RBRACE. {
	Node *ret = NEW(ND_RETURN, RT.loc); ret->lhs = E;
	C = ast_block(A, K.loc, nl_add(S, ret).head);
}
cond_settings_opt(L) ::= . { L = (NodeList){0}; }
cond_settings_opt(L) ::= settings(S). { L = S; }

/* transition = '{' stmt* '}' | assignment | expr — always stored as a block */
%type transition {Node *}
transition(T) ::= LBRACE(K) stmts(S) RBRACE. { T = ast_block(A, K.loc, S.head); }
transition(T) ::= assignment(X). { T = ast_block(A, X->loc, X); }
transition(T) ::= expr(E). { T = ast_block(A, E->loc, NULL); T->lhs = E; }

%type outfn_opt {Node *}
outfn_opt(O) ::= . { O = NULL; }
outfn_opt(O) ::= LONGARROW output_fn(F). { O = F; }

/* output_fn = '{' stmt* ('return' expr ';')? '}' | expr | hold forms */
%type output_fn {Node *}
output_fn(F) ::= LBRACE(K) stmts(S) RBRACE. { F = ast_block(A, K.loc, S.head); }
output_fn(F) ::= LBRACE(K) stmts(S) RETURN(RT) expr(E) SEMI RBRACE. {
	Node *ret = NEW(ND_RETURN, RT.loc); ret->lhs = E;
	F = ast_block(A, K.loc, nl_add(S, ret).head);
}
output_fn(F) ::= expr(E). { F = E; }
output_fn(F) ::= NO(K) HOLD. { F = NEW(ND_HOLD, K.loc); F->op = HOLD_NO; }
output_fn(F) ::= ZERO(K) ORDER HOLD. { F = NEW(ND_HOLD, K.loc); F->op = HOLD_ZERO; }
output_fn(F) ::= KW_ZOH(K). { F = NEW(ND_HOLD, K.loc); F->op = HOLD_ZERO; F->flags = 1; }
output_fn(F) ::= FIRST(K) ORDER HOLD. { F = NEW(ND_HOLD, K.loc); F->op = HOLD_FIRST; }
output_fn(F) ::= KW_FOH(K). { F = NEW(ND_HOLD, K.loc); F->op = HOLD_FIRST; F->flags = 1; }

/* quantize(P, "zone", limit, "zone", ...) | quantize(P, = expr) | quantize P every D (with? offset O)? */
%type quantize {Node *}
quantize(Q) ::= QUANTIZE(K) LPAREN port_ref(P) COMMA quant_zones(Z) RPAREN. {
	Q = NEW(ND_QUANTIZE, K.loc); Q->op = QUANT_ZONES; Q->lhs = P; Q->list1 = Z.head;
}
quantize(Q) ::= QUANTIZE(K) LPAREN port_ref(P) COMMA EQ arith(F) RPAREN. {
	Q = NEW(ND_QUANTIZE, K.loc); Q->op = QUANT_FUNCTION; Q->lhs = P; Q->rhs = F;
}
quantize(Q) ::= QUANTIZE(K) port_ref(P) EVERY arith(D). {
	Q = NEW(ND_QUANTIZE, K.loc); Q->op = QUANT_EVERY; Q->lhs = P; Q->rhs = D;
}
quantize(Q) ::= QUANTIZE(K) port_ref(P) EVERY arith(D) WITH OFFSET arith(O). {
	Q = NEW(ND_QUANTIZE, K.loc); Q->op = QUANT_EVERY; Q->lhs = P; Q->rhs = D; Q->els = O;
}
quantize(Q) ::= QUANTIZE(K) port_ref(P) EVERY arith(D) OFFSET arith(O). {
	Q = NEW(ND_QUANTIZE, K.loc); Q->op = QUANT_EVERY; Q->lhs = P; Q->rhs = D; Q->els = O; Q->flags = 1;
}
quant_zones(L) ::= STRING(S). { L = nl_one(ast_string(A, S.loc, tok_string_value(ctx, S))); }
quant_zones(L) ::= quant_zones(P) COMMA arith(X) COMMA STRING(S). {
	L = nl_add(nl_add(P, X), ast_string(A, S.loc, tok_string_value(ctx, S)));
}

/* ---- statements ----
 * stmt = var_decl | assignment ';' | call ';' | if | for | 'break' ';' */
stmts(L) ::= . { L = (NodeList){0}; }
stmts(L) ::= stmts(P) stmt(S). { L = nl_add(P, S); }
%type stmt {Node *}
stmt(S) ::= var_decl(D). { S = D; }
stmt(S) ::= assignment(X) SEMI. { S = X; }
stmt(S) ::= call(C) SEMI. { S = NEW(ND_CALL_STMT, C->loc); S->lhs = C; }
stmt(S) ::= if_stmt(X). { S = X; }
stmt(S) ::= FOR(K) LPAREN VAR ID(N) IN expr(F) DOTDOT expr(T) RPAREN LBRACE stmts(B) RBRACE. {
	S = NEW(ND_FOR, K.loc); S->name = tok_str(ctx, N); S->lhs = F; S->rhs = T;
	S->then = ast_block(A, K.loc, B.head);
	S->init = ast_name(A, N.loc, S->name); /* where the loop variable is declared */
}
stmt(S) ::= BREAK(K) SEMI. { S = NEW(ND_BREAK, K.loc); }

/* var_decl = 'var' (type? ID (':=' expr)?),+ ';' */
%type var_decl {Node *}
var_decl(D) ::= VAR(K) var_items(L) SEMI. { D = NEW(ND_VAR, K.loc); D->list1 = L.head; }
var_items(L) ::= var_item(X). { L = nl_one(X); }
var_items(L) ::= var_items(P) COMMA var_item(X). { L = nl_add(P, X); }
%type var_item {Node *}
var_item(D) ::= type_opt(T) ID(N). {
	D = NEW(ND_VARDECL, N.loc); D->type = (SaType)T; D->name = tok_str(ctx, N);
}
var_item(D) ::= type_opt(T) ID(N) ASSIGN expr(E). {
	D = NEW(ND_VARDECL, N.loc); D->type = (SaType)T; D->name = tok_str(ctx, N); D->init = E;
}

/* assignment = lvalue ':=' expr;  lvalue = ID '.' ID ['[' subscripts ']'] | ID */
%type assignment {Node *}
assignment(X) ::= lvalue(L) ASSIGN expr(E). { X = ast_assign(A, L->loc, L, E); }
%type lvalue {Node *}
lvalue(L) ::= ID(N). { L = ast_name(A, N.loc, tok_str(ctx, N)); }
lvalue(L) ::= ID(O) DOT ID(N). { L = ast_port_ref(A, loc_span(O.loc, N.loc), tok_str(ctx, O), tok_str(ctx, N)); }
lvalue(L) ::= ID(O) DOT ID(N) LBRACKET subscripts(S) RBRACKET(R). {
	L = ast_port_ref(A, loc_span(O.loc, R.loc), tok_str(ctx, O), arena_printf(A, "%s[%s]", tok_str(ctx, N), S));
}

/* subscripts = INT {',' INT}: one element of an inner's array port, 1-based, named as
 * the element port is ("y[2]", "A[1,2]") */
%type subscripts {const char *}
subscripts(S) ::= INT(N). { S = arena_printf(A, "%lld", mk_int(ctx, N, 0)->ival); }
subscripts(S) ::= subscripts(P) COMMA INT(N). { S = arena_printf(A, "%s,%lld", P, mk_int(ctx, N, 0)->ival); }

/* call = do_step(ID, expr, expr) | save_state(ID) | rollback(ID) | discard(ID) */
%type call {Node *}
call(C) ::= DO_STEP(K) LPAREN ID(F) COMMA expr(T) COMMA expr(H) RPAREN. {
	C = NEW(ND_BUILTIN, K.loc); C->op = BI_DO_STEP; C->name = tok_str(ctx, F);
	C->owner = (const char *)0; C->list1 = T; T->next = H;
	C->loc.len = (int)strlen("do_step");
	C->lhs = ast_name(A, F.loc, C->name);
}
call(C) ::= SAVE_STATE(K) LPAREN ID(F) RPAREN. {
	C = NEW(ND_BUILTIN, K.loc); C->op = BI_SAVE_STATE; C->name = tok_str(ctx, F);
	C->lhs = ast_name(A, F.loc, C->name);
}
call(C) ::= ROLLBACK(K) LPAREN ID(F) RPAREN. {
	C = NEW(ND_BUILTIN, K.loc); C->op = BI_ROLLBACK; C->name = tok_str(ctx, F);
	C->lhs = ast_name(A, F.loc, C->name);
}
call(C) ::= DISCARD(K) LPAREN var_ref(V) RPAREN. {
	C = NEW(ND_BUILTIN, K.loc); C->op = BI_DISCARD; C->list1 = V;
}

/* if = 'if' '(' expr ')' '{' stmt* '}' ('else' '{' stmt* '}' | 'else' if)? */
%type if_stmt {Node *}
if_stmt(S) ::= IF(K) LPAREN expr(C) RPAREN LBRACE(B) stmts(T) RBRACE else_opt(E). {
	S = NEW(ND_IF, K.loc); S->cond = C; S->then = ast_block(A, B.loc, T.head); S->els = E;
}
%type else_opt {Node *}
else_opt(E) ::= . { E = NULL; }
else_opt(E) ::= ELSE LBRACE(B) stmts(S) RBRACE. { E = ast_block(A, B.loc, S.head); }
else_opt(E) ::= ELSE if_stmt(S). { E = S; }

/* ---- expressions ----
 * expr = or;  or = and ('or' and)*;  and = not ('and' not)*;  not = 'not' not | cmp */
%type expr {Node *}
%type or_expr {Node *}
%type and_expr {Node *}
%type not_expr {Node *}
%type cmp_expr {Node *}
%type arith {Node *}
%type term {Node *}
%type unary {Node *}
%type primary {Node *}
%type literal {Node *}
%type var_ref {Node *}
%type builtin {Node *}
expr(E) ::= or_expr(X). { E = X; }
or_expr(E) ::= and_expr(X). { E = X; }
or_expr(E) ::= or_expr(L) OR and_expr(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_OR, L, R); }
and_expr(E) ::= not_expr(X). { E = X; }
and_expr(E) ::= and_expr(L) AND not_expr(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_AND, L, R); }
not_expr(E) ::= NOT(K) not_expr(X). { E = ast_unary(A, loc_span(K.loc, X->loc), OP_NOT, X); }
not_expr(E) ::= cmp_expr(X). { E = X; }

/* cmp = arith (('<' | '<=' | '>' | '>=' | '==' | '!=' | '>!' | '<!') arith)?
 * `x<-1` lexes as x '<-' 1, since '<-' is a token; it means x < -1. */
cmp_expr(E) ::= arith(X). { E = X; }
cmp_expr(E) ::= arith(L) LT arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_LT, L, R); }
cmp_expr(E) ::= arith(L) LE arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_LE, L, R); }
cmp_expr(E) ::= arith(L) GT arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_GT, L, R); }
cmp_expr(E) ::= arith(L) GE arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_GE, L, R); }
cmp_expr(E) ::= arith(L) EQEQ arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_EQ, L, R); }
cmp_expr(E) ::= arith(L) NE arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_NE, L, R); }
cmp_expr(E) ::= arith(L) CROSSUP arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_CROSS_UP, L, R); }
cmp_expr(E) ::= arith(L) CROSSDOWN arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_CROSS_DOWN, L, R); }
cmp_expr(E) ::= arith(L) LARROW neg_arith(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_LT, L, R); }

/* After '<-' the minus belongs to the first unary operand, where a '-' written apart
 * would have bound: `x <- a * b` is x < (-a) * b, `x <- (a + b)` is x < -(a + b).
 * neg_arith and neg_term are arith and term with that first operand negated. */
%type neg_arith {Node *}
%type neg_term {Node *}
neg_arith(E) ::= neg_term(X). { E = X; }
neg_arith(E) ::= neg_arith(L) PLUS term(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_ADD, L, R); }
neg_arith(E) ::= neg_arith(L) MINUS term(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_SUB, L, R); }
neg_term(E) ::= unary(X). { E = ast_unary(A, X->loc, OP_NEG, X); }
neg_term(E) ::= neg_term(L) STAR unary(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_MUL, L, R); }
neg_term(E) ::= neg_term(L) SLASH unary(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_DIV, L, R); }

/* arith = term (('+' | '-') term)*;  term = unary (('*' | '/') unary)*;  unary = '-' unary | primary */
arith(E) ::= term(X). { E = X; }
arith(E) ::= arith(L) PLUS term(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_ADD, L, R); }
arith(E) ::= arith(L) MINUS term(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_SUB, L, R); }
term(E) ::= unary(X). { E = X; }
term(E) ::= term(L) STAR unary(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_MUL, L, R); }
term(E) ::= term(L) SLASH unary(R). { E = ast_binary(A, loc_span(L->loc, R->loc), OP_DIV, L, R); }
unary(E) ::= MINUS(K) unary(X). { E = ast_unary(A, loc_span(K.loc, X->loc), OP_NEG, X); }
unary(E) ::= primary(X). { E = X; }

/* primary = '(' expr ')' | literal | builtin | var_ref  (and 'otherwise', section 7) */
primary(E) ::= LPAREN expr(X) RPAREN. { E = X; }
primary(E) ::= literal(X). { E = X; }
primary(E) ::= builtin(X). { E = X; }
primary(E) ::= var_ref(X). { E = X; }
primary(E) ::= OTHERWISE(K). { E = NEW(ND_OTHERWISE, K.loc); }

/* literal = INT | REAL | STRING | 'true' | 'false'  (a leading '-' only in port start values) */
literal(E) ::= INT(T). { E = mk_int(ctx, T, 0); }
literal(E) ::= REAL(T). { E = mk_real(ctx, T, 0); }
literal(E) ::= STRING(T). { E = ast_string(A, T.loc, tok_string_value(ctx, T)); }
literal(E) ::= TRUE(T). { E = ast_bool(A, T.loc, true); }
literal(E) ::= FALSE(T). { E = ast_bool(A, T.loc, false); }
/* Port start values are literals, possibly negative. */
%type port_literal {Node *}
port_literal(E) ::= literal(X). { E = X; }
port_literal(E) ::= MINUS(K) INT(T). { E = mk_int(ctx, T, 1); E->loc = loc_span(K.loc, T.loc); }
port_literal(E) ::= MINUS(K) REAL(T). { E = mk_real(ctx, T, 1); E->loc = loc_span(K.loc, T.loc); }

/* var_ref = 'H' | 'h' | 't' | 'dt' | 'e' | 'MAX' | ID '.' ID ['[' subscripts ']'] | ID
 *         (and signal[...]) */
var_ref(E) ::= KW_BIGH(K). { E = NEW(ND_KEYVAR, K.loc); E->op = KV_BIG_H; }
var_ref(E) ::= KW_H(K). { E = NEW(ND_KEYVAR, K.loc); E->op = KV_H; }
var_ref(E) ::= KW_T(K). { E = NEW(ND_KEYVAR, K.loc); E->op = KV_T; }
var_ref(E) ::= KW_DT(K). { E = NEW(ND_KEYVAR, K.loc); E->op = KV_DT; }
var_ref(E) ::= KW_E(K). { E = NEW(ND_KEYVAR, K.loc); E->op = KV_E; }
var_ref(E) ::= KW_MAX(K). { E = NEW(ND_KEYVAR, K.loc); E->op = KV_MAX; }
var_ref(E) ::= ID(N). { E = ast_name(A, N.loc, tok_str(ctx, N)); }
var_ref(E) ::= ID(O) DOT ID(N). { E = ast_port_ref(A, loc_span(O.loc, N.loc), tok_str(ctx, O), tok_str(ctx, N)); }
var_ref(E) ::= ID(O) DOT ID(N) LBRACKET subscripts(S) RBRACKET(R). {
	E = ast_port_ref(A, loc_span(O.loc, R.loc), tok_str(ctx, O), arena_printf(A, "%s[%s]", tok_str(ctx, N), S));
}
var_ref(E) ::= SIGNAL(K). { E = NEW(ND_SIGNAL, K.loc); E->op = SIG_PLAIN; }
var_ref(E) ::= SIGNAL(K) LBRACKET NOW RBRACKET(R). { E = NEW(ND_SIGNAL, loc_span(K.loc, R.loc)); E->op = SIG_NOW; }
var_ref(E) ::= SIGNAL(K) LBRACKET PREV RBRACKET(R). { E = NEW(ND_SIGNAL, loc_span(K.loc, R.loc)); E->op = SIG_PREV; }
var_ref(E) ::= SIGNAL(K) LBRACKET MINUS INT(N) RBRACKET(R). {
	E = NEW(ND_SIGNAL, loc_span(K.loc, R.loc)); E->op = SIG_INDEX; E->ival = -mk_int(ctx, N, 0)->ival;
}
var_ref(E) ::= SIGNAL(K) LBRACKET INT(N) RBRACKET(R). {
	E = NEW(ND_SIGNAL, loc_span(K.loc, R.loc)); E->op = SIG_INDEX; E->ival = mk_int(ctx, N, 0)->ival;
}

/* builtin = floor/ceil/abs(e) | round(e (, e)?) | max/min(e,+) | is_close(e, e (, e, e)?)
 *         | is_set(var_ref) | do_step(ID, e, e) | get_next_time_step(ID) | elapsed(ID)
 *         | last_execution_time(ID) */
%type fn1 {FnTok}
fn1(F) ::= FLOOR(K). { F = (FnTok){BI_FLOOR, K.loc}; }
fn1(F) ::= CEIL(K). { F = (FnTok){BI_CEIL, K.loc}; }
fn1(F) ::= ABS(K). { F = (FnTok){BI_ABS, K.loc}; }
%type fnn {FnTok}
fnn(F) ::= MAX(K). { F = (FnTok){BI_MAX, K.loc}; }
fnn(F) ::= MIN(K). { F = (FnTok){BI_MIN, K.loc}; }
fnn(F) ::= ROUND(K). { F = (FnTok){BI_ROUND, K.loc}; }
fnn(F) ::= IS_CLOSE(K). { F = (FnTok){BI_IS_CLOSE, K.loc}; }
%type fnfmu {FnTok}
fnfmu(F) ::= GET_NEXT_TIME_STEP(K). { F = (FnTok){BI_GET_NEXT_TIME_STEP, K.loc}; }
fnfmu(F) ::= ELAPSED(K). { F = (FnTok){BI_ELAPSED, K.loc}; }
fnfmu(F) ::= LAST_EXECUTION_TIME(K). { F = (FnTok){BI_LAST_EXECUTION_TIME, K.loc}; }
builtin(E) ::= fn1(F) LPAREN expr(X) RPAREN(R). {
	E = NEW(ND_BUILTIN, loc_span(F.loc, R.loc)); E->op = F.op; E->list1 = X;
}
builtin(E) ::= fnn(F) LPAREN exprlist(L) RPAREN(R). {
	E = NEW(ND_BUILTIN, loc_span(F.loc, R.loc)); E->op = F.op; E->list1 = L.head;
}
builtin(E) ::= IS_SET(K) LPAREN var_ref(V) RPAREN(R). {
	E = NEW(ND_BUILTIN, loc_span(K.loc, R.loc)); E->op = BI_IS_SET; E->list1 = V;
}
builtin(E) ::= DO_STEP(K) LPAREN ID(F) COMMA expr(T) COMMA expr(H) RPAREN(R). {
	E = NEW(ND_BUILTIN, loc_span(K.loc, R.loc)); E->op = BI_DO_STEP; E->name = tok_str(ctx, F);
	E->list1 = T; T->next = H; E->lhs = ast_name(A, F.loc, E->name);
}
builtin(E) ::= fnfmu(FN) LPAREN ID(F) RPAREN(R). {
	E = NEW(ND_BUILTIN, loc_span(FN.loc, R.loc)); E->op = FN.op; E->name = tok_str(ctx, F);
	E->lhs = ast_name(A, F.loc, E->name);
}
exprlist(L) ::= expr(X). { L = nl_one(X); }
exprlist(L) ::= exprlist(P) COMMA expr(X). { L = nl_add(P, X); }

%code {
/* The token the parser stopped at, in messages: "'}'", "identifier 'x'", "end of file". */
static const char *unexpected_words(ParseCtx *ctx, int major, Token tok)
{
	int len = tok.n > 40 ? 40 : tok.n;
	if (major == 0)
		return "end of file";
	if (major == TK_ID || major == TK_INT || major == TK_REAL || major == TK_STRING)
		return arena_printf(A, "%s '%.*s'", lex_token_name(major), len, tok.s);
	return lex_token_name(major);
}

/* Reports the first syntax error of a file.  A ';' that would have been taken where the
 * line ended, or the only token that would, is what is missing: the error then stands
 * right after the token it should follow (as GCC reports it), not at the next token on
 * the next line.  Within a line (`a < b < c`) the unexpected token is the likelier
 * mistake. */
static void syntax_error(ParseCtx *ctx, int major, Token tok, const int *expected, int nexpected,
			 bool semi_ok)
{
	ctx->failed = 1;
	if (ctx->syntax_errors++)
		return; /* one syntax error per file: what follows it is guesswork */
	const char *what = unexpected_words(ctx, major, tok);
	bool id_ok = false;
	for (int i = 0; i < nexpected && nexpected <= 6; i++)
		id_ok = id_ok || expected[i] == TK_ID;
	bool only_semi = nexpected == 0 || (nexpected == 1 && expected[0] == TK_SEMI);
	Loc after_prev = loc_after(ctx->prev);
	bool line_ended = major == 0 || tok.loc.line > after_prev.line;
	if (semi_ok && ctx->prev.s && (only_semi || line_ended)) {
		diag_error(ctx->diag, after_prev, "syntax error: expected ';' before %s",
			   what);
	} else {
		StrBuf want;
		sb_init(&want);
		if (nexpected > 0 && nexpected <= 6) {
			sb_puts(&want, "; expected ");
			for (int i = 0; i < nexpected; i++) {
				if (i > 0)
					sb_puts(&want, i == nexpected - 1 ? " or " : ", ");
				sb_puts(&want, lex_token_name(expected[i]));
			}
		}
		diag_error(ctx->diag, tok.loc, "syntax error: unexpected %s%s", what, sb_str(&want));
		sb_free(&want);
	}
	int len = tok.n > 40 ? 40 : tok.n;
	if (major == TK_IMPORT)
		diag_note(ctx->diag, tok.loc, "imports come first in a file, before 'module'");
	else if (id_ok && major >= TK_KW_REAL && major <= TK_TIMEDERIVATIVE)
		diag_note(ctx->diag, tok.loc, "'%.*s' is a reserved word; write '^%.*s' to use it as a name",
			  len, tok.s, len, tok.s);
}

static Node *mk_int(ParseCtx *ctx, Token t, int negative)
{
	char *s = tok_str(ctx, t);
	errno = 0;
	long long v = strtoll(s, NULL, 10);
	if (errno == ERANGE) {
		diag_error(ctx->diag, t.loc, "integer literal '%s' is too large", s);
		v = 0;
	}
	Node *n = ast_int(A, t.loc, negative ? -v : v);
	return n;
}

static Node *mk_real(ParseCtx *ctx, Token t, int negative)
{
	char *s = tok_str(ctx, t);
	errno = 0;
	double v = strtod(s, NULL);
	if (errno == ERANGE && (v > 1.0 || v < -1.0)) {
		diag_error(ctx->diag, t.loc, "real literal '%s' is out of range", s);
		v = 0;
	}
	Node *n = ast_real(A, t.loc, negative ? -v : v);
	n->str = negative ? arena_printf(A, "-%s", s) : s;
	return n;
}

static int deriv_flag_merge(ParseCtx *ctx, int flags, int flag, Token t)
{
	if (flags & flag)
		diag_error(ctx->diag, t.loc, "'%.*s' given twice", t.n, t.s);
	return flags | flag;
}

/* Places a general rule, merging a `with ... interpolation` into the `multiply rate`
 * before it (the two are one form, split so that the grammar stays LALR(1)). */
static NodeList add_general(ParseCtx *ctx, NodeList l, Node *g)
{
	if (g->kind == ND_MULTIRATE && !g->lhs) {
		Node *prev = l.tail;
		if (prev && prev->kind == ND_MULTIRATE && prev->op < 0) {
			prev->op = g->op;
			prev->flags = g->flags;
			return l;
		}
		diag_error(ctx->diag, g->loc,
			   "interpolation given without a 'multiply rate N times' before it");
		return l;
	}
	if (g->kind == ND_BLOCK) {
		diag_error(ctx->diag, g->loc, "%s must follow their 'for inner fmu'",
			   g->op == 'p' ? "parameter bindings" : "port clauses");
		return l;
	}
	if (g->kind == ND_CONNECTION) {
		ctx->pending_couplings = nl_add(ctx->pending_couplings, g);
		return l;
	}
	return nl_add(l, g);
}

/* An inner's `with model exchange` and its solver settings (each clause its own
 * ND_MODEL_EXCHANGE) made one body: the first clause's node, flags 1 when the words were
 * written, the settings in order. */
static void merge_model_exchange(ParseCtx *ctx, Node *inner, Node *w)
{
	if (!inner->body) {
		inner->body = w;
		return;
	}
	if (w->flags && inner->body->flags)
		diag_error(ctx->diag, w->loc, "inner fmu '%s' already says 'with model exchange'",
			   inner->name);
	inner->body->flags |= w->flags;
	inner->body->list1 = ast_append(inner->body->list1, w->list1);
}

static Node *mk_inner(ParseCtx *ctx, Token for_tok, int kind, Token type, Token name,
		      Node *path, NodeList withs)
{
	Node *n = NEW(ND_INNER, name.loc);
	n->flags = kind;
	n->tname = tok_str(ctx, type);
	n->name = tok_str(ctx, name);
	n->str = path ? path->str : NULL;
	n->init = path; /* keeps the path's location */
	NodeList in = {0}, out = {0}, params = {0};
	for (Node *w = withs.head, *next; w; w = next) {
		next = w->next;
		w->next = NULL;
		if (w->kind == ND_BLOCK && w->op == 'p')
			params = nl_cat(params, (NodeList){w->list1, ast_last(w->list1)});
		else if (w->kind == ND_BLOCK && w->op == 'i' && !in.head)
			in = (NodeList){w->list1, ast_last(w->list1)};
		else if (w->kind == ND_BLOCK && w->op == 'o' && !out.head)
			out = (NodeList){w->list1, ast_last(w->list1)};
		else if (w->kind == ND_BLOCK)
			diag_error(ctx->diag, w->loc, "inner fmu '%s' already has %s ports", n->name,
				   w->op == 'i' ? "input" : "output");
		else if (w->kind == ND_CONNECTION)
			ctx->pending_couplings = nl_add(ctx->pending_couplings, w);
		else if (w->kind == ND_MODEL_EXCHANGE)
			merge_model_exchange(ctx, n, w);
		else
			ctx->pending_general = add_general(ctx, ctx->pending_general, w);
	}
	n->list1 = in.head;
	n->list2 = out.head;
	n->list3 = params.head;
	(void)for_tok;
	return n;
}

/* with_item: `with model exchange`, checked for its two words; flags 1 says it was
 * written (the settings' node has 0). */
static Node *mk_model_exchange(ParseCtx *ctx, Token with, Token model, Token exchange)
{
	if (model.n != 5 || memcmp(model.s, "model", 5) != 0 || exchange.n != 8 ||
	    memcmp(exchange.s, "exchange", 8) != 0)
		diag_error(ctx->diag, loc_span(model.loc, exchange.loc), "expected 'model exchange' "
			   "after 'with'");
	Node *n = NEW(ND_MODEL_EXCHANGE, loc_span(with.loc, exchange.loc));
	n->flags = 1;
	return n;
}

/* inner: the word between 'for' and 'inner'.  Returns KIND_ISOLATED, or 0 after an error. */
static int isolated_word(ParseCtx *ctx, Token word)
{
	if (word.n == 8 && memcmp(word.s, "isolated", 8) == 0)
		return KIND_ISOLATED;
	diag_error(ctx->diag, word.loc, "expected 'inner' or 'isolated inner' after 'for'");
	return 0;
}

/* fmi_opt: `fmi 3` after the adaptation's `at`.  Returns 2 or 3, or 0 after an error. */
static int fmi_clause(ParseCtx *ctx, Token word, Token version)
{
	if (word.n != 3 || memcmp(word.s, "fmi", 3) != 0) {
		diag_error(ctx->diag, word.loc, "expected 'fmi' and a version, or 'for inner fmu', "
			   "after the adaptation's 'at'");
		return 0;
	}
	const char *v = tok_str(ctx, version);
	if (strcmp(v, "2") == 0 || strcmp(v, "2.0") == 0)
		return 2;
	if (strcmp(v, "3") == 0 || strcmp(v, "3.0") == 0)
		return 3;
	diag_error(ctx->diag, version.loc, "FMI version '%s' is not one sacc builds: 2 or 3", v);
	return 0;
}

static Node *mk_adaptation(ParseCtx *ctx, Node *head, NodeList inners, NodeList coupling,
			   NodeList in, NodeList out, NodeList params, NodeList general,
			   Node *control, NodeList in_part, NodeList out_part)
{
	Node *sa = head;
	sa->a_inners = inners.head;
	sa->a_couplings = nl_cat(coupling, ctx->pending_couplings).head;
	sa->a_inports = in.head;
	sa->a_outports = out.head;
	sa->a_params = params.head;
	sa->a_general = nl_cat(ctx->pending_general, general).head;
	ctx->pending_couplings = (NodeList){0};
	ctx->pending_general = (NodeList){0};
	if (control) {
		sa->a_ctrl_vars = control->list1;
		sa->a_ctrl = control->lhs;
	}
	/* in_part and out_part hold the storage vars followed by the ND_RULES node. */
	for (Node *n = in_part.head, *next; n; n = next) {
		next = n->next;
		n->next = NULL;
		if (n->kind == ND_RULES)
			sa->a_in_rules = n;
		else
			sa->a_in_vars = ast_append(sa->a_in_vars, n);
	}
	for (Node *n = out_part.head, *next; n; n = next) {
		next = n->next;
		n->next = NULL;
		if (n->kind == ND_RULES)
			sa->a_out_rules = n;
		else
			sa->a_out_vars = ast_append(sa->a_out_vars, n);
	}
	return sa;
}
}
