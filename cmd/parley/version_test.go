package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLine(t *testing.T) {
	stamped := func(settings ...debug.BuildSetting) *debug.BuildInfo { return &debug.BuildInfo{Settings: settings} }
	revision := debug.BuildSetting{Key: "vcs.revision", Value: "2741de4e7df792d9d99d899696cc35e50ee8faef"}
	cases := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"a build from a clean checkout", stamped(revision, debug.BuildSetting{Key: "vcs.modified", Value: "false"}), true,
			"parley dev (commit 2741de4e7df792d9d99d899696cc35e50ee8faef)\n"},
		{"uncommitted changes", stamped(revision, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), true,
			"parley dev (commit 2741de4e7df792d9d99d899696cc35e50ee8faef+changes)\n"},
		{"no VCS stamp", stamped(debug.BuildSetting{Key: "vcs.modified", Value: "true"}), true, "parley dev (commit unknown)\n"},
		{"no build information", nil, false, "parley dev (commit unknown)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, versionLine(tc.info, tc.ok))
		})
	}
	t.Run("the version set with -ldflags -X main.version", func(t *testing.T) {
		defer func(v string) { version = v }(version)
		version = "1.4.0"
		assert.Equal(t, "parley 1.4.0 (commit unknown)\n", versionLine(nil, false))
	})
}

// TestVersionAndHelpCommands: `version` and `--version` print the same
// line; `--help` says what Parley is before the usage.
func TestVersionAndHelpCommands(t *testing.T) {
	want := versionLine(debug.ReadBuildInfo())
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errs bytes.Buffer
		require.Equal(t, 0, run(context.Background(), args, &out, &errs), errs.String())
		assert.Equal(t, want, out.String(), args)
	}
	var out, errs bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"--help"}, &out, &errs))
	first, _, _ := strings.Cut(out.String(), "\n")
	assert.Equal(t, "Parley: a self-hosted shared inbox serving Help Scout's Mailbox API 2.0.", first)
	assert.Contains(t, out.String(), "\n  parley version\n")
}
