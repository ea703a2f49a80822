/*
 * asm_int.h - data structures shared by the assembler's source files,
 * which form layers: each calls only the layers below it (and asm_li.c's
 * tables, which call nothing).
 *
 *   asm.c       statements, directives, the two passes, the program
 *   asm_src.c   input: files, .include, .macro expansion, .if, next_line
 *   asm_lex.c   tokens, expression trees, evaluation, the symbol table,
 *               the arena
 *   asm_err.c   errors, kept and printed in reading order at the end
 *
 *   asm_li.c    li sequences and the pseudo/directive tables (a leaf)
 *
 * Input sits above tokens because conditionals evaluate expressions and
 * macro calls parse their line; every layer reports errors.
 *
 * Memory: everything that lives as long as one assembly (expression nodes,
 * operands, statements, symbol names, source locations, macro bodies) comes
 * from one arena and is freed at once.  Source text stays loaded until the
 * end because statements point into it for the caret lines of pass 2.
 */
#ifndef NPU_ASM_INT_H
#define NPU_ASM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "asm.h"

/* ---- arena ----------------------------------------------------------------*/

struct arena_blk;

/*
 * Bump allocator; alloc returns zeroed memory or NULL when out of memory.
 * Blocks are 64 KiB (or one allocation, if larger), so a typical kernel
 * costs a handful of mallocs; nothing is freed before arena_free.  Every
 * allocation is rounded up to max_align_t.
 */
struct arena {
	struct arena_blk *head;  /* newest block first */
};
void *arena_alloc(struct arena *ar, size_t n);
char *arena_strndup(struct arena *ar, const char *s, size_t n);
void arena_free(struct arena *ar);

/* ---- source locations -----------------------------------------------------*/

struct expn;

/*
 * A source line: where it came from and its text (for the caret line).
 * One record per line read, macro lines included (each expansion of a
 * body line gets its own, with its substituted text and exp set), so a
 * message can quote exactly the text that was assembled.
 */
struct where {
	const char *file;         /* file name as given / found */
	int line;                 /* 1-based */
	const char *text;         /* the line (after macro substitution) */
	const struct expn *exp;   /* macro expansion it came from, or NULL */
	unsigned seq;             /* reading order, for sorting the errors */
};

/* One level of macro expansion (for "in expansion of macro" notes). */
struct expn {
	const char *macro;        /* macro name */
	const struct where *call; /* the line that invoked it */
	int col;                  /* column of the macro name there */
};

/* ---- tokens ---------------------------------------------------------------*/

/* Kinds of tokens; every tokenised line ends with exactly one T_EOL. */
enum tok_kind {
	T_EOL,     /* end of the line (or a comment) */
	T_IDENT,   /* name: [A-Za-z_.][A-Za-z0-9_.]* */
	T_NUM,     /* integer literal, value in num */
	T_FLOAT,   /* floating literal, value in fnum */
	T_STR,     /* "string", decoded text in str */
	T_PUNCT,   /* operator or punctuation, code in op */
};

/* Two-character operators (single characters use their own code). */
enum {
	/* From 256 up: above every single-character code. */
	OP_SHL = 256, OP_SHR, OP_LE, OP_GE, OP_EQ, OP_NE, OP_LAND, OP_LOR,
	OP_NEG, OP_POS  /* unary minus / plus inside expression trees */
};

struct tok {
	enum tok_kind k;  /* kind */
	int op;           /* T_PUNCT: character or OP_* */
	int col;          /* 1-based column of the first character */
	int len;          /* characters in the source */
	const char *s;    /* start in the line */
	uint64_t num;     /* T_NUM value (two's complement for negatives) */
	double fnum;      /* T_FLOAT value */
	float fnum32;     /* T_FLOAT value rounded once to fp32 (strtof) */
	char *str;        /* T_STR decoded contents (arena) */
};

/* A tokenised line. */
struct toks {
	struct tok *v;    /* tokens, the last one T_EOL */
	int n;            /* count including T_EOL */
	int cap;          /* allocated */
};

/* ---- expressions ----------------------------------------------------------*/

/* Expression trees are built in pass 1 and evaluated as often as needed. */
enum expr_kind {
	E_NUM,    /* literal */
	E_SYM,    /* symbol reference (name) */
	E_DOT,    /* `.`: address of the current statement */
	E_UN,     /* unary op a */
	E_BIN,    /* a op b */
	E_COND,   /* a ? b : c */
};

struct expr {
	enum expr_kind kind; /* which of the shapes below */
	int op;              /* E_UN / E_BIN operator */
	int col;             /* column for messages */
	int64_t val;         /* E_NUM */
	const char *name;    /* E_SYM (arena) */
	struct expr *a, *b, *c; /* operands: a; a, b; a ? b : c */
};

/*
 * Result of evaluating an expression.
 * EV_UNDEF lets pass 1 lay out forward references: the caller keeps the
 * tree and evaluates it again in pass 2, when it is an error instead.
 */
enum ev_result {
	EV_OK = 0,     /* value computed */
	EV_UNDEF = 1,  /* needs a symbol not known yet (pass 1 only) */
	EV_ERR = -1,   /* error reported */
};

/* ---- symbols --------------------------------------------------------------*/

enum sym_kind {
	SK_BUILTIN,   /* dtype names, names.def constants */
	SK_LABEL,     /* label: address in space */
	SK_EQU,       /* .equ */
	SK_DEFINE,    /* -D */
	SK_TENSOR,    /* .tensor name = its address */
};

/*
 * Lifecycle of a symbol value: .equ and .tensor symbols start
 * SS_PENDING when their expression uses a later name; labels, builtins
 * and -D are SS_VALUE from the start.
 */
enum sym_state {
	SS_VALUE,      /* value is known */
	SS_PENDING,    /* e must still be evaluated (forward reference) */
	SS_EVALUATING, /* being evaluated: seeing it again is a cycle */
	SS_BAD,        /* its definition had an error (reported once) */
};

struct sym {
	const char *name;         /* symbol name (arena copy) */
	enum sym_kind kind;       /* how it was defined */
	enum sym_state state;     /* whether value is known */
	int space;                /* SK_LABEL: enum asm_space; SK_TENSOR: obj_mem */
	int64_t value;            /* when SS_VALUE */
	struct expr *e;           /* when SS_PENDING */
	uint64_t dot;             /* `.` at the definition (for e) */
	const struct where *w;    /* definition, NULL for builtins/-D */
	int col;                  /* column of the definition */
};

/* ---- sections -------------------------------------------------------------*/

/*
 * Location counters: one per space.
 * Each space has its own address counter starting at 0; only SP_TEXT
 * holds instructions.  SP_DATA is the control unit's scalar memory.
 */
enum asm_space {
	SP_TEXT, SP_DATA, SP_DRAM, SP_SPM, SP_ACC, SP_N
};

/* A run of initialised bytes in one data space. */
struct chunk {
	int space;                /* enum asm_space (not SP_TEXT) */
	uint64_t start;           /* address of the first byte */
	uint64_t size;            /* bytes */
	uint8_t *bytes;           /* contents, allocated after pass 1 */
	const struct where *w;    /* directive that started it */
	int col;                  /* column of that directive */
	struct chunk *next;       /* next chunk in creation order */
};

/* ---- statements -----------------------------------------------------------*/

/*
 * Operands of a statement, one per syntax word.  OPD_VAL is known in
 * pass 1 (names, floats, the "(rs1)" zero); OPD_EXPR waits for pass 2.
 */
enum opnd_kind {
	OPD_REG,    /* register number in reg */
	OPD_EXPR,   /* expression e */
	OPD_VAL,    /* value known in pass 1 (names, floats) */
};

struct opnd {
	enum opnd_kind kind; /* which member holds the value */
	int reg;            /* OPD_REG */
	int64_t val;        /* OPD_VAL */
	struct expr *e;     /* OPD_EXPR */
	int col;            /* column of the operand */
};

/*
 * What pass 2 does with a statement.  ST_ALIGN with aux = -1 is also
 * the "emit nothing" state of a statement that failed in pass 1.
 */
enum stmt_kind {
	ST_INSN,    /* real instruction: id = enum isa_op */
	ST_PSEUDO,  /* single-instruction pseudo: id = enum asm_pseudo_id */
	ST_LI,      /* li: size fixed in pass 1 */
	ST_DATA,    /* .byte/.half/.word/.dword: width in aux */
	ST_FLOAT,   /* .float: OPD_VAL bit patterns */
	ST_FILL,    /* .fill: count in aux2, size in aux, value ops[0] */
	ST_ALIGN,   /* padding (nops in .text, zeros elsewhere) */
	ST_TENSOR,  /* .tensor */
};

struct stmt {
	enum stmt_kind kind;      /* which of the kinds above */
	int id;                   /* see stmt_kind */
	int space;                /* enum asm_space */
	const struct where *w;    /* source line */
	int col;                  /* column of the mnemonic / directive */
	uint64_t addr;            /* address of the first byte */
	uint64_t size;            /* bytes */
	struct chunk *chunk;      /* data: the chunk holding the bytes */
	int n;                    /* operands */
	struct opnd *ops;         /* n operand slots (arena) */
	int64_t aux, aux2;        /* kind-specific (see above) */
	const char *name;         /* ST_TENSOR: the tensor's name */
	struct stmt *next;        /* next statement in source order */
};

/* ---- the assembler state --------------------------------------------------*/

struct src_file;
struct err_rec;
struct frame;
struct macro;
struct cond;

struct asm_ctx {
	struct diag *d;              /* where errors go */
	int n_err;                   /* errors reported by this assembly */
	int oom;                     /* an allocation failed */
	int fatal;                   /* a limit was hit: stop reading input */
	const struct asm_opts *opts; /* -D, -I */
	struct arena ar;             /* everything freed at the end */
	int pass;                    /* 1 or 2 */

	struct src_file *files;      /* every file read (kept to the end) */
	struct frame *top;           /* input stack: files and macro bodies */
	int depth;                   /* frames on the stack */
	struct macro *macros;        /* defined macros (list) */
	struct macro *defining;      /* macro whose body is being captured */
	unsigned n_expansions;       /* for \@ */
	struct cond *conds;          /* .if stack (array) */
	int n_conds, cap_conds;      /* open .if blocks / allocated entries */

	struct sym **symtab;         /* open hash table of symbols */
	size_t n_syms, cap_syms;     /* symbols stored / slots (power of 2) */

	struct stmt *stmts, **stmt_tail; /* statements in source order */
	int space;                   /* current enum asm_space */
	uint64_t loc[SP_N];          /* location counters */
	struct chunk *open[SP_N];    /* chunk being appended per space */
	struct chunk *chunks;        /* all chunks, creation order */
	struct chunk **chunk_tail;   /* where the next chunk is linked */
	uint64_t data_bytes;         /* initialised data so far (limit) */

	struct toks tk;              /* token buffer of the current line */
	unsigned line_seq;           /* lines read so far (where.seq) */
	size_t expanded_bytes;       /* text produced by macro substitution */
	const struct where *last_w;  /* the line read last */
	struct err_rec *errs;        /* errors, printed sorted at the end */
	size_t n_errs, cap_errs;     /* records stored / allocated */
	struct obj_prog *prog;       /* pass 2 output */
	size_t n_tensors;            /* .tensor statements seen */
	const char **regions;        /* region names (arena), index = id,
					in order of first use (pass 1) */
	size_t n_regions, cap_regions; /* names stored / allocated */
	struct obj_tunable *tunables; /* .tunable statements (pass 1) */
	size_t n_tunables;
	int64_t max_region;          /* largest id given as a number
					(pass 2), -1 none */
};

/*
 * Limits that keep hostile input cheap (each has an error message).
 * The depth limits also bound the C stack: parsing and evaluation
 * recurse once per nesting level.  Not covered: a flat chain of binary
 * operators (1+1+...+1) is a left-deep tree that eval recurses through
 * once per operator, so about 10^5 operators on one line exhaust an
 * 8 MiB stack (measured: 50000 pass, 100000 crash).
 */
#define ASM_MAX_DEPTH 64             /* nested .include + macro frames */
#define ASM_MAX_EXPR_DEPTH 200       /* parentheses / unary nesting */
/* Binary and ?: operators in one expression: a chain a+b+c+... builds a
 * tree as deep as it is long, and evaluation recurses down it (100,000
 * terms overflowed the stack, found in review). */
#define ASM_MAX_EXPR_OPS 4096
#define ASM_MAX_EVAL_DEPTH 500       /* chained .equ references */
#define ASM_MAX_DATA_BYTES (64u << 20) /* initialised data per program */
#define ASM_MAX_CODE_WORDS (4u << 20)  /* instructions per program */
#define ASM_MAX_EXPANSIONS 100000    /* macro expansions per program */
#define ASM_MAX_LINES 1000000        /* lines read, macro bodies included */
#define ASM_MAX_ERRORS 1000          /* errors reported before giving up */
#define ASM_MAX_EXPANDED_BYTES (16u << 20) /* text produced by macros */

/* ---- errors (asm_err.c) ---------------------------------------------------*/

/* Report an error at w:col with caret and macro notes; returns EV_ERR. */
int asm_error(struct asm_ctx *A, const struct where *w, int col,
	      const char *fmt, ...) NPU_PRINTF(4, 5);
/* Report running out of memory once; returns EV_ERR. */
int asm_oom(struct asm_ctx *A);
/* Print the kept errors in reading order and free them (at cleanup, while
 * the source text they quote is still loaded). */
void asm_flush_errors(struct asm_ctx *A);

/* ---- tokens, expressions, symbols (asm_lex.c) ------------------------------*/

/* Tokenise text into A->tk; 0, or EV_ERR after reporting a bad token. */
int asm_lex(struct asm_ctx *A, const char *text, const struct where *w);
/* Error unless token i ends the line. */
int asm_expect_eol(struct asm_ctx *A, const struct where *w, int i,
		   const char *dir);
/* Token text into buf (truncated), returns buf. */
const char *asm_tok_text(const struct tok *t, char *buf, size_t n);
/* Parse an expression at tokens[*i]; NULL after reporting an error. */
struct expr *asm_parse_expr(struct asm_ctx *A, const struct where *w, int *i);
/*
 * Evaluate e with `.` = dot.  In pass 1 an unknown symbol gives EV_UNDEF
 * (nothing reported); in pass 2 it is an error.
 */
int asm_eval(struct asm_ctx *A, const struct expr *e, uint64_t dot,
	     const struct where *w, int64_t *out);
/* The first symbol e refers to that has no value yet (for messages). */
const char *asm_first_undef(struct asm_ctx *A, const struct expr *e);
/* Parse an expression at *i and evaluate it now (pass-1 value; `.` is
 * the current location); what names it in the message if it cannot be. */
int asm_expr_now(struct asm_ctx *A, const struct where *w, int *i,
		 const char *what, int64_t *v);
/* Token text for messages: "'foo'", "end of line" ... */
const char *asm_tok_desc(const struct tok *t, char *buf, size_t n);

struct sym *asm_sym_find(struct asm_ctx *A, const char *name);
/* Insert a new symbol (name copied); NULL on OOM. */
struct sym *asm_sym_add(struct asm_ctx *A, const char *name, size_t len);
/* Closest user symbol name to name, or NULL. */
const char *asm_sym_suggest(struct asm_ctx *A, const char *name);
/* 1 if name is reserved (register) and cannot be a symbol. */
int asm_name_reserved(const char *name);
/*
 * Split v into lui hi (value hi << 13) + addi lo; 1 if both fit their
 * fields (v within about +-2^31), else 0.  (asm_li.c)
 *
 * (lui writes hi << 13; addi adds a 14-bit signed lo.)
 */
int asm_li_lui_addi(int64_t v, int64_t *hi, int64_t *lo);
/* fp32 bits of d, rounded to nearest even (as a C double->float cast). */
uint32_t asm_f32_bits(double d);

/* ---- input (asm_src.c) ------------------------------------------------------*/

/*
 * A source file, split in place into NUL-terminated lines.
 * lines[i] is line i+1, NUL-terminated in place ("\r\n" endings lose the
 * '\r'); the text is kept until cleanup because every struct where of
 * the file points into it.
 */
struct src_file {
	char *path;              /* as found (malloc'd) */
	char *text;              /* contents (malloc'd, modified) */
	char **lines;            /* pointers into text */
	int n_lines;             /* number of lines */
	struct src_file *next;   /* next file read (list for cleanup) */
};

/* A macro definition. */
struct macro {
	const char *name;            /* macro name (arena) */
	int n_params;                /* number of parameters */
	const char **params;         /* parameter names */
	const char **defaults;       /* default text, NULL = required */
	const struct where **body;   /* body lines as captured */
	int n_body, cap_body;        /* body lines used / allocated */
	const struct where *w;       /* the .macro line */
	int col;                     /* column of .macro, for messages */
	struct macro *next;          /* next defined macro (list) */
};

/*
 * One open .if.
 * A region assembles iff active; parent_active is the state of the
 * enclosing region, so a nested .if in a false region stays false
 * whatever its condition (which is not even evaluated).
 */
struct cond {
	int parent_active;       /* the enclosing region assembles */
	int taken;               /* some branch of this .if was taken */
	int active;              /* the current branch assembles */
	int seen_else;           /* .else already seen */
	const struct where *w;   /* the .if line, for "unterminated" */
	int col;                 /* column of the .if */
};

/*
 * An input frame: a file being read or a macro being expanded.
 * Frames form a stack through up.  cond_base makes .if/.endif pairs
 * match within one file or one macro expansion: a frame that ends with
 * more open blocks than it started with reports them as unterminated.
 */
struct frame {
	int is_macro;                /* macro expansion (else a file) */
	struct src_file *f;          /* file frame: the file */
	int next;                    /* next line / body line index */
	struct macro *m;             /* macro frame: the macro */
	const char **args;           /* argument text per parameter */
	unsigned id;                 /* expansion number for \@ */
	const struct expn *exp;      /* expansion record for its lines */
	int cond_base;               /* n_conds when the frame was entered */
	struct frame *up;            /* the frame that pushed this one */
};

/* Adopt malloc'd text as file path, split into lines; NULL on OOM. */
struct src_file *asm_add_file(struct asm_ctx *A, const char *path,
			      char *text, size_t len);
/* Read a file into a NUL-terminated buffer; NULL with errno set. */
char *asm_slurp(const char *path, size_t *len);
/* Push a file frame (start reading f). */
int asm_push_file(struct asm_ctx *A, struct src_file *f);
/* The next input line (macro-substituted), NULL at the end or on a limit. */
const struct where *asm_next_line(struct asm_ctx *A);
/* .include, .macro (token i after the directive). */
void asm_dir_include(struct asm_ctx *A, const struct where *w, int i);
void asm_dir_macro(struct asm_ctx *A, const struct where *w, int i, int col);
struct macro *asm_find_macro(struct asm_ctx *A, const char *name, size_t len);
/* Add a line to the macro being defined (A->defining). */
void asm_macro_add_line(struct asm_ctx *A, const struct where *w);
/* Call macro m, named by token i of line w. */
void asm_expand_macro(struct asm_ctx *A, const struct where *w, int i,
		      struct macro *m);
/* 1 if the current region assembles (no false .if around it). */
int asm_active(const struct asm_ctx *A);
/* A conditional directive dir; bad: its line did not tokenise. */
void asm_do_cond(struct asm_ctx *A, const struct where *w, int dir, int i,
		 int col, int bad);
/* The first word of a line, for lines that are not tokenised. */
size_t asm_first_word(const char *text, const char **start);
int asm_word_is(const char *s, size_t n, const char *lit);

#endif
