package query

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Limits against abusive queries. They are far above what a person types.
const (
	// MaxLength is the longest accepted query, in bytes.
	MaxLength = 4096
	// MaxDepth is how deeply parentheses and negations may nest.
	MaxDepth = 32
	// MaxClauses is the most leaf clauses (field:value, ranges, exists,
	// bare terms) a query may hold, counted after field groups are expanded.
	MaxClauses = 256
	// MaxPhraseWords is the most words a quoted value may hold. A phrase
	// is checked word against word at every position of every candidate,
	// so its cost grows with the square of its length: 256 repetitions of
	// a common word took 0.6 s over 10,000 conversations, where 32 took
	// 12 ms; a sentence an agent pastes fits in 32 words.
	MaxPhraseWords = 32
)

// fieldName is what may stand before ':'. Anything else there is more likely
// a value holding a colon (a URL, a time) than a field, so it gets its own error.
var fieldName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// Parse reads a query into syntax nodes (Field, Range, Exists, And, Or, Not).
// Nested And/And and Or/Or are flattened; a `+` prefix leaves no trace. The
// error, if any, is an *Error with a column. The nodes of a query parsed
// before are shared (see parsed): callers must not change them, and Check
// does not.
func Parse(input string) (Node, error) {
	parsed.Lock()
	n, ok := parsed.nodes[input]
	parsed.Unlock()
	if ok {
		return n, nil
	}
	n, err := parse(input)
	if err != nil {
		return nil, err
	}
	parsed.Lock()
	if len(parsed.nodes) >= maxParsed {
		clear(parsed.nodes)
	}
	parsed.nodes[input] = n
	parsed.Unlock()
	return n, nil
}

// parsed keeps the syntax of the queries parsed last: integrators and
// dashboards send the same few queries again and again, and parsing one
// was a sixth of the time of a one-hit list (query 8 of the benchmark).
// When full it is emptied rather than kept in order of use: the queries
// in use come back at once.
var parsed = struct {
	sync.Mutex
	nodes map[string]Node
}{nodes: map[string]Node{}}

// maxParsed bounds the queries parsed kept (each at most MaxLength bytes).
const maxParsed = 1024

func parse(input string) (Node, error) {
	src := source(input)
	if len(input) > MaxLength {
		// Point at the first character past the limit; the cut may fall
		// inside a multi-byte character, which col handles.
		return nil, src.errorAt(MaxLength, "query too long", ", at most "+strconv.Itoa(MaxLength)+" bytes are allowed")
	}
	if !utf8.ValidString(input) {
		bad := 0
		for bad < len(input) {
			r, size := utf8.DecodeRuneInString(input[bad:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			bad += size
		}
		return nil, src.errorAt(bad, "invalid UTF-8", "")
	}
	tokens, lerr := lex(src)
	if lerr != nil {
		return nil, lerr
	}
	if len(tokens) == 1 {
		return nil, &Error{Column: 1, Message: "empty query"}
	}
	if terr := checkTokens(src, tokens); terr != nil {
		return nil, terr
	}
	g, err := parseTokens(tokens)
	if err != nil {
		offset := len(input)
		if pe, ok := err.(participle.Error); ok {
			offset = pe.Position().Offset
		}
		return nil, src.syntaxError(tokens, offset)
	}
	c := converter{src: src}
	n, cerr := c.or(g, "", 0)
	if cerr != nil {
		return nil, cerr
	}
	return n, nil
}

func parseTokens(tokens []lexer.Token) (*gOr, error) {
	peek, err := lexer.Upgrade(&replay{tokens: tokens})
	if err != nil {
		return nil, err
	}
	return queryParser.ParseFromLexer(peek)
}

// lex runs the lexer over the whole input, so that tokens can be checked
// before parsing and consulted to explain a parse error.
func lex(src source) ([]lexer.Token, *Error) {
	l, err := queryLexer.LexString("", string(src))
	if err != nil {
		return nil, src.lexError(err)
	}
	tokens, err := lexer.ConsumeAll(l)
	if err != nil {
		return nil, src.lexError(err)
	}
	return tokens, nil
}

// replay feeds already lexed tokens to the parser.
type replay struct{ tokens []lexer.Token }

func (r *replay) Next() (lexer.Token, error) {
	t := r.tokens[0]
	if !t.EOF() {
		r.tokens = r.tokens[1:]
	}
	return t, nil
}

// checkTokens rejects what is easier to see in the token stream than in the
// grammar: parentheses nested deeper than MaxDepth (checked before parsing,
// since the parser recurses once per level), and two values glued together
// without a space, such as foo"bar", which would otherwise silently become
// two clauses.
func checkTokens(src source, tokens []lexer.Token) *Error {
	depth := 0
	for i, t := range tokens {
		switch t.Value {
		case "(":
			depth++
			if depth > MaxDepth {
				return src.tooDeep(t.Pos.Offset)
			}
		case ")":
			depth = max(depth-1, 0)
		}
		if i > 0 && isValueToken(tokens[i-1]) && isValueToken(t) &&
			tokens[i-1].Pos.Offset+len(tokens[i-1].Value) == t.Pos.Offset {
			return src.errorAt(t.Pos.Offset, "missing space before "+describe(t), "")
		}
	}
	return nil
}

func (s source) tooDeep(offset int) *Error {
	return s.errorAt(offset, "too deeply nested", ", parentheses and negations may nest at most "+strconv.Itoa(MaxDepth)+" levels")
}

// isValueToken reports tokens that stand for a value: words, timestamps,
// quoted values and '*'.
func isValueToken(t lexer.Token) bool {
	switch t.Type {
	case wordToken, dateTimeToken, quotedToken:
		return true
	}
	return t.Value == "*"
}

// converter turns the grammar structs into syntax nodes, resolving escapes,
// distributing field groups and enforcing MaxDepth and MaxClauses.
type converter struct {
	src     source
	clauses int
}

// or converts an OR list. field is the field of the enclosing field group,
// given to bare terms inside it; depth counts enclosing groups and negations.
func (c *converter) or(g *gOr, field string, depth int) (Node, *Error) {
	nodes := make([]Node, 0, len(g.And))
	for _, a := range g.And {
		n, err := c.and(a, field, depth)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return newOr(nodes), nil
}

func (c *converter) and(g *gAnd, field string, depth int) (Node, *Error) {
	nodes := make([]Node, 0, len(g.Unary))
	for _, u := range g.Unary {
		n, err := c.unary(u, field, depth)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return AllOf(nodes...), nil
}

func (c *converter) unary(u *gUnary, field string, depth int) (Node, *Error) {
	// Next, not Op, tells which branch matched: participle records a capture
	// before it knows whether the rest of its branch matches.
	if u.Next == nil {
		return c.primary(u.Primary, field, depth)
	}
	if u.Op == "+" {
		return c.unary(u.Next, field, depth)
	}
	if depth >= MaxDepth {
		return nil, c.src.tooDeep(u.Pos.Offset)
	}
	n, err := c.unary(u.Next, field, depth+1)
	if err != nil {
		return nil, err
	}
	return Not{Node: n}, nil
}

func (c *converter) primary(p *gPrimary, field string, depth int) (Node, *Error) {
	switch {
	case p.Group != nil:
		return c.group(p.Group, p.Pos.Offset, field, depth)
	case p.Range != nil:
		if field == "" {
			return nil, c.src.errorAt(p.Pos.Offset, "range without a field", ", write it as field:[from TO to]")
		}
		return c.rangeNode(p.Range, field, p.Pos.Offset)
	case p.Quoted != nil:
		return c.quoted(*p.Quoted, field, p.Quoted.Pos.Offset)
	case !p.Colon:
		// A bare word, or a word inside a field group.
		return c.word(gWord{Word: *p.Term}, field, p.Term.Pos.Offset)
	}
	name := p.Term.Value
	if !fieldName.MatchString(name) {
		return nil, c.src.errorAt(p.Term.Pos.Offset, "invalid field name "+strconv.Quote(name), `, quote the value or write \: to search for ":"`)
	}
	// An explicit field inside a field group wins over the group's field,
	// as in Lucene: subject:(refund body:card) searches card in body.
	v, at := p.Value, p.Term.Pos.Offset
	switch {
	case v.Group != nil:
		return c.group(v.Group, v.Pos.Offset, name, depth)
	case v.Range != nil:
		return c.rangeNode(v.Range, name, at)
	case v.Star:
		if err := c.countClause(at); err != nil {
			return nil, err
		}
		return Exists{Field: name, Column: c.src.col(at)}, nil
	case v.Quoted != nil:
		return c.quoted(*v.Quoted, name, at)
	default:
		return c.word(*v.Word, name, at)
	}
}

func (c *converter) group(g *gOr, offset int, field string, depth int) (Node, *Error) {
	if depth >= MaxDepth {
		return nil, c.src.tooDeep(offset)
	}
	return c.or(g, field, depth+1)
}

func (c *converter) countClause(offset int) *Error {
	c.clauses++
	if c.clauses > MaxClauses {
		return c.src.errorAt(offset, "too many clauses", ", a query may hold at most "+strconv.Itoa(MaxClauses))
	}
	return nil
}

// quoted makes a Field from a quoted value; at is the clause's offset.
func (c *converter) quoted(tok lexer.Token, field string, at int) (Node, *Error) {
	value := unquote(tok.Value)
	if value == "" {
		return nil, c.src.errorAt(tok.Pos.Offset, "empty quoted value", "")
	}
	if len(strings.Fields(value)) > MaxPhraseWords {
		return nil, c.src.errorAt(tok.Pos.Offset, "phrase too long", ", a quoted value may hold at most "+strconv.Itoa(MaxPhraseWords)+" words")
	}
	if err := c.countClause(at); err != nil {
		return nil, err
	}
	return Field{Field: field, Value: value, Quoted: true, Column: c.src.col(at)}, nil
}

// word makes a Field from an unquoted value; at is the clause's offset.
func (c *converter) word(w gWord, field string, at int) (Node, *Error) {
	value, wildcard, err := c.wordValue(w)
	if err != nil {
		return nil, err
	}
	if err := c.countClause(at); err != nil {
		return nil, err
	}
	return Field{Field: field, Value: value, Wildcard: wildcard, Column: c.src.col(at)}, nil
}

// wordValue resolves a word's sign, escapes and trailing wildcard.
func (c *converter) wordValue(w gWord) (string, bool, *Error) {
	prefix := ""
	if w.Sign != nil {
		if w.Sign.Pos.Offset+len(w.Sign.Value) != w.Word.Pos.Offset {
			return "", false, c.src.errorAt(w.Sign.Pos.Offset, "unexpected space after "+strconv.Quote(w.Sign.Value), "")
		}
		prefix = w.Sign.Value
	}
	value, wildcard, star := unescapeWord(w.Word.Value)
	if star >= 0 {
		return "", false, c.src.errorAt(w.Word.Pos.Offset+star, `wildcard "*" not at the end of a word`,
			`, only suffix wildcards like refun* are supported; write \* to search for "*"`)
	}
	return prefix + value, wildcard, nil
}

func (c *converter) rangeNode(r *gRange, field string, at int) (Node, *Error) {
	lower, lowerOpen, err := c.bound(r.Lower)
	if err != nil {
		return nil, err
	}
	upper, upperOpen, err := c.bound(r.Upper)
	if err != nil {
		return nil, err
	}
	if err := c.countClause(at); err != nil {
		return nil, err
	}
	return Range{
		Field: field,
		Lower: lower, Upper: upper,
		LowerOpen: lowerOpen, UpperOpen: upperOpen,
		LowerInclusive: r.Open == "[", UpperInclusive: r.Close == "]",
		Column: c.src.col(at),
	}, nil
}

// bound reads one end of a range; open reports `*`.
func (c *converter) bound(b *gBound) (value string, open bool, err *Error) {
	switch {
	case b.Star:
		return "", true, nil
	case b.Quoted != nil:
		value = unquote(b.Quoted.Value)
	default:
		var wildcard bool
		value, wildcard, err = c.wordValue(*b.Word)
		if err != nil {
			return "", false, err
		}
		if wildcard {
			return "", false, c.src.errorAt(b.Pos.Offset, "wildcard in a range bound", `, write \* to search for "*"`)
		}
	}
	if value == "" {
		return "", false, c.src.errorAt(b.Pos.Offset, "empty range bound", `, write * for an open end`)
	}
	return value, false, nil
}

// unescapeWord resolves backslash escapes in an unquoted word. A final
// unescaped '*' is the wildcard; star is the byte offset of any other
// unescaped '*', or -1.
func unescapeWord(raw string) (value string, wildcard bool, star int) {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		// Bytes of a multi-byte character are never '\\' or '*', so a byte
		// loop is enough: an escaped character's first byte is taken here and
		// the rest follow as ordinary bytes.
		switch raw[i] {
		case '\\':
			if i+1 < len(raw) {
				i++
				b.WriteByte(raw[i])
			}
		case '*':
			if i != len(raw)-1 {
				return "", false, i
			}
			wildcard = true
		default:
			b.WriteByte(raw[i])
		}
	}
	return b.String(), wildcard, -1
}

// unquote strips the quotes of a Quoted token and resolves its escapes.
func unquote(raw string) string {
	raw = raw[1 : len(raw)-1]
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			i++
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// newOr joins nodes with OR, flattening nested Ors; one node stands alone.
func newOr(nodes []Node) Node {
	if len(nodes) == 1 {
		return nodes[0]
	}
	flat := make([]Node, 0, len(nodes))
	for _, n := range nodes {
		if o, ok := n.(Or); ok {
			flat = append(flat, o.Nodes...)
		} else {
			flat = append(flat, n)
		}
	}
	return Or{Nodes: flat}
}
