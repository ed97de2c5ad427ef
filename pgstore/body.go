package pgstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	parley "github.com/parley/parley"
)

// A record's body is its JSON, as the embedded store keeps it, in a jsonb
// column. jsonb cannot hold the character U+0000, which a record may (an
// e-mail's text): encodeBody writes it as the escape character U+FFFF
// followed by '0', and the escape character itself doubled, so every
// string survives; decodeBody undoes both. U+FFFF is a noncharacter, which
// no text exchanged between systems holds, so bodies are almost never
// rewritten.
const bodyEscape = "\uffff"

var (
	jsonNUL       = []byte(`\u0000`)
	escape        = []byte(bodyEscape)
	escapedNUL    = []byte(bodyEscape + "0")
	escapedEscape = []byte(bodyEscape + bodyEscape)
)

// encodeBody is the one way a record becomes a stored body.
func encodeBody(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("pgstore: encode %T: %w", v, err)
	}
	if !bytes.Contains(b, jsonNUL) && !bytes.Contains(b, escape) {
		return b, nil
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		switch {
		case b[i] == '\\' && bytes.HasPrefix(b[i:], jsonNUL):
			out = append(out, escapedNUL...)
			i += len(jsonNUL)
		case b[i] == '\\': // another escape: copied whole, so its "\u0000"-looking tail is not taken for one
			out = append(out, b[i], b[i+1])
			i += 2
		case bytes.HasPrefix(b[i:], escape):
			out = append(out, escapedEscape...)
			i += len(escape)
		default:
			out = append(out, b[i])
			i++
		}
	}
	return out, nil
}

// decodeBody is the one way a stored body becomes a record again.
func decodeBody(body []byte, v any) error {
	if bytes.Contains(body, escape) {
		var out []byte
		for i := 0; i < len(body); {
			switch {
			case bytes.HasPrefix(body[i:], escapedEscape):
				out = append(out, escape...)
				i += len(escapedEscape)
			case bytes.HasPrefix(body[i:], escapedNUL):
				out = append(out, jsonNUL...)
				i += len(escapedNUL)
			default:
				out = append(out, body[i])
				i++
			}
		}
		body = out
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("pgstore: decode %T: %w", v, err)
	}
	return nil
}

// keyText is a string as a text key column holds it. PostgreSQL's text
// refuses U+0000 and invalid UTF-8, which the embedded store's byte keys
// take: U+0000 and the escape character are escaped as in bodies, and
// invalid bytes become U+FFFD.
func keyText(s string) string {
	s = strings.ToValidUTF8(s, "\ufffd")
	if !strings.ContainsAny(s, "\x00"+bodyEscape) {
		return s
	}
	return keyEscaper.Replace(s)
}

var keyEscaper = strings.NewReplacer(bodyEscape, bodyEscape+bodyEscape, "\x00", bodyEscape+"0")

// domainError words a statement's error for the caller; every such error
// is internal to the domain (Conflicts are found before writing, so the
// transaction stays usable after one, as in the embedded store), but for
// the server running short of a resource (see shortage).
func domainError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.ConstraintName != "" {
		return fmt.Errorf("pgstore: %s: %w", pgErr.ConstraintName, err)
	}
	return shortage(fmt.Errorf("pgstore: %w", err))
}

// shortage returns err as a parley.Unavailable when PostgreSQL refused the
// statement for want of a resource it shares between sessions (SQLSTATE
// class 53, insufficient resources: shared memory, as a full predicate
// lock table reports, connections, disk, a configured limit), else err as
// it is. Such a refusal says nothing of the request, and usually passes as
// other transactions end.
func shortage(err error) error {
	var pgErr *pgconn.PgError
	var domain *parley.Error
	if errors.As(err, &domain) || !errors.As(err, &pgErr) || !strings.HasPrefix(pgErr.Code, "53") {
		return err
	}
	return parley.Unavailable(err)
}
