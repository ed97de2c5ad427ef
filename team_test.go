package parley_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// TestCreateTeam: a team of the company's users (each once), named, its
// name not another team's; what it refuses says which field.
func TestCreateTeam(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	w := newWorld(t)
	owner := w.caller.User.ID
	cases := []struct {
		name    string
		team    string
		members []int64
		want    []int64 // members stored
		problem string  // the path of the field refused
	}{
		{"members, each once", " Tier 2 ", []int64{owner, owner}, []int64{owner}, ""},
		{"no members", "Night shift", nil, []int64{}, ""},
		{"a name taken", "tier 2", nil, nil, "name"},
		{"no name", "  ", nil, nil, "name"},
		{"another company's user", "Billing", []int64{owner, 999}, nil, "memberIds[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var made *parley.Team
			err := w.write(func(tx parley.Tx) (err error) {
				made, err = parley.CreateTeam(tx, w.caller.Company.ID, tc.team, tc.members, now)
				return err
			})
			if tc.problem != "" {
				var e *parley.Error
				require.ErrorAs(t, err, &e)
				require.NotEmpty(t, e.Errors)
				assert.Equal(t, tc.problem, e.Errors[0].Path)
				return
			}
			require.NoError(t, err)
			var stored *parley.Team
			require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) (err error) {
				stored, err = tx.Team(w.caller.Company.ID, made.ID)
				return err
			}))
			assert.Equal(t, &parley.Team{ID: made.ID, CompanyID: w.caller.Company.ID, Name: strings.TrimSpace(tc.team),
				MemberIDs: tc.want, CreatedAt: now, UpdatedAt: now}, stored)
		})
	}
}
