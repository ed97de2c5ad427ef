package parley

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Patch operations (RFC 6902) the API takes.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
	OpMove    = "move"
)

// PatchOp is one JSON Patch operation (RFC 6902) of a PATCH request.
type PatchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

// ParsePatch reads a PATCH body: an array of operations, or a single
// operation object (the documented form of this API family).
func ParsePatch(body []byte) ([]PatchOp, error) {
	body = bytes.TrimSpace(body)
	var ops []PatchOp
	var err error
	if len(body) > 0 && body[0] == '{' {
		var op PatchOp
		err = json.Unmarshal(body, &op)
		ops = []PatchOp{op}
	} else {
		err = json.Unmarshal(body, &ops)
	}
	if err != nil {
		return nil, InvalidField("", CodeInvalidJSON, "the body must be a JSON Patch operation or an array of them", nil)
	}
	if len(ops) == 0 {
		return nil, InvalidField("", CodeEmptyValue, "at least one patch operation is needed", nil)
	}
	return ops, nil
}

func patchRefused(i int, op PatchOp, allowed string) error {
	return InvalidField(fmt.Sprintf("[%d]", i), CodePatchOperation,
		fmt.Sprintf("%q on %q is not allowed; allowed: %s", op.Op, op.Path, allowed), op.Op+" "+op.Path)
}

// patchKey addresses one entry of a patch table: an operation on a path.
type patchKey struct{ op, path string }

// patchTable is the one patch style of the domain: each allowed operation
// on each path has its handler, which gets the operation's index (for
// error paths) and the operation. S is the patcher of one record.
type patchTable[S any] map[patchKey]func(s S, i int, op PatchOp) error

// apply runs the operations in order, stopping at the first error; an
// operation the table lacks is refused with the allowed list.
func (t patchTable[S]) apply(s S, ops []PatchOp, allowed string) error {
	for i, op := range ops {
		h, ok := t[patchKey{op.Op, op.Path}]
		if !ok {
			return patchRefused(i, op, allowed)
		}
		if err := h(s, i, op); err != nil {
			return err
		}
	}
	return nil
}
