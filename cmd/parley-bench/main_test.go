package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchRunsSmall runs the whole bench at a tiny size so it cannot rot;
// its figures mean nothing at this size.
func TestBenchRunsSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	var table bytes.Buffer
	err := Run(context.Background(), Options{N: 300, HTTP: 60, Clients: 4, Chats: 30, Repeat: 2, Scan: true, Out: out, Companies: 2}, &table)
	require.NoError(t, err, table.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var res Results
	require.NoError(t, json.Unmarshal(data, &res))
	assert.Equal(t, 300, res.N)
	assert.Len(t, res.Queries, 13+18+3, "the reference queries, the reports, and the lists with and without facets")
	assert.Positive(t, res.HTTPPerSecond)
	assert.Positive(t, res.InternalPerSecond)
	for _, q := range res.Queries {
		assert.Positive(t, q.P50, q.Name)
	}
	assert.Contains(t, table.String(), "10 one conversation with threads")
}
