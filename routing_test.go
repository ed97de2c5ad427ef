package parley

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRoutingPick(t *testing.T) {
	rr := func(last int64) *Routing {
		return &Routing{State: RoutingEnabled, AssignmentMethod: RoundRobin, AssignmentLimit: 3, UserIDs: []int64{1, 2, 3}, LastUserID: last}
	}
	bal := func(last int64) *Routing {
		return &Routing{State: RoutingEnabled, AssignmentMethod: Balanced, AssignmentLimit: 3, UserIDs: []int64{1, 2, 3}, LastUserID: last}
	}
	free := []RoutingMember{{UserID: 1}, {UserID: 2}, {UserID: 3}}
	cases := []struct {
		name    string
		routing *Routing
		members []RoutingMember
		want    int64
	}{
		{"round robin starts with the first", rr(0), free, 1},
		{"round robin takes the next", rr(1), free, 2},
		{"round robin wraps", rr(3), free, 1},
		{"round robin restarts when the last left the list", rr(9), free, 1},
		{"round robin skips the away", rr(1), []RoutingMember{{UserID: 1}, {UserID: 2, Away: true}, {UserID: 3}}, 3},
		{"round robin skips the full", rr(1), []RoutingMember{{UserID: 1}, {UserID: 2, Open: 3}, {UserID: 3}}, 3},
		{"round robin skips users who are no members", rr(1), []RoutingMember{{UserID: 1}, {UserID: 3}}, 3},
		{"round robin ignores load below the limit", rr(0), []RoutingMember{{UserID: 1, Open: 2}, {UserID: 2}, {UserID: 3}}, 1},
		{"balanced takes the least loaded", bal(0), []RoutingMember{{UserID: 1, Open: 2}, {UserID: 2, Open: 1}, {UserID: 3, Open: 2}}, 2},
		{"balanced breaks ties after the last", bal(1), []RoutingMember{{UserID: 1}, {UserID: 2, Open: 1}, {UserID: 3}}, 3},
		{"balanced skips the away", bal(0), []RoutingMember{{UserID: 1, Away: true}, {UserID: 2, Open: 2}, {UserID: 3, Open: 1}}, 3},
		{"nobody eligible", bal(0), []RoutingMember{{UserID: 1, Open: 3}, {UserID: 2, Away: true}, {UserID: 3, Open: 5}}, 0},
		{"a member outside the list never", rr(0), []RoutingMember{{UserID: 7}}, 0},
		{"disabled", &Routing{State: RoutingDisabled, AssignmentMethod: RoundRobin, AssignmentLimit: 3, UserIDs: []int64{1}}, free, 0},
		{"none", nil, free, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.routing.Pick(tc.members))
		})
	}
}

func TestRoutingRotation(t *testing.T) {
	r := &Routing{State: RoutingEnabled, AssignmentMethod: RoundRobin, AssignmentLimit: 2, UserIDs: []int64{1, 2, 3}}
	got := r.Rotation([]RoutingMember{{UserID: 1, Open: 2}, {UserID: 2, Open: 0, Away: true}, {UserID: 3, Open: 1}, {UserID: 4, Open: 1, Away: true}})
	assert.Equal(t, []RotationEntry{
		{UserID: 1, Open: 2, Reason: ReasonAtCapacity},
		{UserID: 2, Open: 0, Reason: ReasonAway},
		{UserID: 3, Open: 1, Eligible: true},
		{UserID: 4, Open: 1, Reason: ReasonNotInRotation},
	}, got)
}
