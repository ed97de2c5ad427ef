// Package golden compares test output with files under testdata/. The
// packages with golden files share it so that `go test ./... -update`
// rewrites every one of them the same way.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Assert fails the test unless got equals testdata/<name>; with -update it
// writes got there instead.
func Assert(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file %s; run go test with -update", path)
	require.Equal(t, string(want), got, "%s is stale; review the diff and run go test with -update", path)
}
