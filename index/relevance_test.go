package index_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
	"github.com/parley/parley/fixtures"
	"github.com/parley/parley/index"
	"github.com/parley/parley/internal/golden"
	"github.com/parley/parley/storage"
)

// relevanceFloor is the least mean precision at 10 the judged set may
// fall to (the figure recorded in testdata/relevance.golden when it was
// last reviewed, rounded down).
const relevanceFloor = 0.735

// judgement is one line of testdata/judged.txt.
type judgement struct {
	company int64
	query   string
	topics  []string
}

func readJudged(t *testing.T) []judgement {
	f, err := os.Open("testdata/judged.txt")
	require.NoError(t, err)
	defer f.Close()
	companies := map[string]int64{"acme": 1, "globex": 2}
	var out []judgement
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		require.Len(t, parts, 3, line)
		company, ok := companies[parts[0]]
		require.True(t, ok, line)
		out = append(out, judgement{company, parts[1], strings.Split(parts[2], ",")})
	}
	require.NoError(t, s.Err())
	return out
}

// topicsByID gives each planned demo conversation its topic, checking
// that the stored conversations are the planned ones.
func topicsByID(t *testing.T, db *storage.DB) map[string]string {
	planned, err := fixtures.Topics(fixtureNow)
	require.NoError(t, err)
	out := map[string]string{}
	i := 0
	require.NoError(t, db.View(func(tx *storage.Tx) error {
		return tx.EachConversation(func(c *parley.Conversation) error {
			if i < len(planned) {
				require.Equal(t, planned[i].Subject, c.Subject, "conversation %d is not the planned one", c.ID)
				out[index.FormatID(c.ID)] = planned[i].Topic
			}
			i++
			return nil
		})
	}))
	require.Len(t, out, len(planned))
	return out
}

// TestRelevance measures the score order on the judged set: precision at
// 10 (the share of the first ten hits about a relevant topic, out of at
// most ten, or of all relevant conversations when fewer exist), per query
// and on average. The figures are a golden file; the mean must not fall
// below relevanceFloor.
func TestRelevance(t *testing.T) {
	e := loadEngines(t)
	bleve := e.open(t, "bleve")
	topics := topicsByID(t, e.db)
	var out strings.Builder
	sum := 0.0
	judged := readJudged(t)
	require.Len(t, judged, 50)
	for _, j := range judged {
		relevant := 0
		for id, topic := range topics {
			if slices.Contains(j.topics, topic) && companyOf(t, e, id) == j.company {
				relevant++
			}
		}
		require.NotZero(t, relevant, "no conversation of %v in company %d", j.topics, j.company)
		res, err := e.search(t, bleve, j.company, j.query, []index.Sort{{Field: index.ScoreField, Desc: true}}, 10)
		require.NoError(t, err, j.query)
		hits := 0
		for _, id := range res.IDs {
			if slices.Contains(j.topics, topics[id]) {
				hits++
			}
		}
		p := float64(hits) / float64(min(10, relevant))
		sum += p
		fmt.Fprintf(&out, "%.2f  %-24s (%d of %d hits relevant, %d relevant)\n", p, j.query, hits, len(res.IDs), relevant)
	}
	mean := sum / float64(len(judged))
	t.Logf("precision at 10 over %d judged queries: %.3f", len(judged), mean)
	golden.Assert(t, "relevance.golden", fmt.Sprintf("mean precision at 10: %.3f\n\n", mean)+out.String())
	assert.GreaterOrEqual(t, mean, relevanceFloor, "relevance fell below its floor")
}

// companyOf reads a conversation's company.
func companyOf(t *testing.T, e *engines, id string) int64 {
	var company int64
	require.NoError(t, e.db.View(func(tx *storage.Tx) error {
		c, err := tx.ConversationByID(index.ParseIDs([]string{id})[0])
		if err == nil {
			company = c.CompanyID
		}
		return err
	}))
	return company
}
