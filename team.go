package parley

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// CreateTeam stores a team of the company's users (the API reads teams
// only: a pull copies them). Teams share the users' id space, so a
// workflow assigning to a team names it as it names a user.
func CreateTeam(tx Tx, companyID int64, name string, memberIDs []int64, now time.Time) (*Team, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, InvalidField("name", CodeEmptyValue, "may not be empty", name)
	}
	if err := tx.LockRule(companyID, "team names"); err != nil {
		return nil, err
	}
	teams, err := tx.Teams(companyID)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(teams, func(t Team) bool { return strings.EqualFold(t.Name, name) }) {
		return nil, &Error{Kind: KindConflict, Message: "Conflict", Errors: []FieldError{{Path: "name", Code: CodeConflict,
			Message: "the company has a team of this name", RejectedValue: name, Source: "JSON"}}}
	}
	members := []int64{}
	for i, id := range memberIDs {
		if _, err := tx.User(companyID, id); IsNotFound(err) {
			return nil, InvalidField(fmt.Sprintf("memberIds[%d]", i), CodeInvalidID, "no user with this id", id)
		} else if err != nil {
			return nil, err
		}
		if !slices.Contains(members, id) {
			members = append(members, id)
		}
	}
	t := &Team{CompanyID: companyID, Name: name, MemberIDs: members, CreatedAt: now, UpdatedAt: now}
	return t, tx.PutTeam(t)
}
