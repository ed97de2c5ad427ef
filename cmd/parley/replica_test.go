package main

import (
	"bytes"
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley/parley/internal/pgtest"
)

// TestServeReadsItsWritesThroughAReplica serves the demo with a streaming
// replica (pg_basebackup -R of the test's primary) behind
// --read-database: 200 times, a conversation created over HTTP is found at
// once by a query= search, which the replica answers once it replayed the
// write. A read database that is a primary is refused, and one without
// --database is a usage error.
func TestServeReadsItsWritesThroughAReplica(t *testing.T) {
	primary, replica := pgtest.Replicated(t)
	var out bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"migrate", "--database", primary}, &out, &out), out.String())

	out.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(),
		"--database", primary, "--read-database", primary}, &out, &out))
	assert.Contains(t, out.String(), "the read database is not a streaming replica")
	out.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(),
		"--read-database", replica}, &out, &out))
	assert.Contains(t, out.String(), "--read-database is a replica of --database, which is not set")

	srv := serveInProcess(t, servingAddr, "serve", "--demo", "--addr", "127.0.0.1:0", "--data", t.TempDir(),
		"--database", primary, "--read-database", replica)
	base := "http://" + srv.addr
	token := demoToken(t, base)
	ctx := context.Background()
	for i := range 200 {
		word := "replica" + letters(i)
		id, ok := createConversation(ctx, base, token, "Invoice "+word)
		require.True(t, ok, "create conversation %d", i)
		search := base + "/v2/conversations?status=all&query=" + url.QueryEscape(`(subject:"`+word+`")`)
		require.Equal(t, []int64{id}, listIDs(t, search, token), "pair %d: the search finds the conversation just created", i)
	}
	srv.stop()
}

// letters spells n in base 26 with the letters a to z, three of them: a
// word of its own for each of the first 17,576 numbers.
func letters(n int) string {
	return string([]byte{byte('a' + n/676%26), byte('a' + n/26%26), byte('a' + n%26)})
}
