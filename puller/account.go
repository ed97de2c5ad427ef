package puller

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	parley "github.com/parley/parley"
	"github.com/parley/parley/importer"
	"github.com/parley/parley/workflow"
)

// copyOnce copies a record the id map does not name yet, in a write that
// notes it there: create returns the target's id. A record the map names
// is counted as there (teams, webhooks and workflows are copied once: an
// administrator may change them on the target).
func (p *puller) copyOnce(kind, counted string, sourceID int64, create func(tx parley.Tx) (int64, error)) {
	if _, there := p.ids[kind][sourceID]; there {
		p.sum.Skipped[counted]++
		return
	}
	_, err := p.db.Update(p.ctx, func(tx parley.Tx) error {
		id, err := create(tx)
		if err != nil {
			return err
		}
		return p.wrote(tx, kind, sourceID, id)
	})
	p.count(counted, sourceID, true, err)
}

// pullTeams copies the teams with their members (the users pulled).
func (p *puller) pullTeams() error {
	return p.src.Pages(p.ctx, "/v2/teams", func(body []byte) error {
		var page struct {
			Embedded struct {
				Teams []struct {
					ID   int64  `json:"id"`
					Name string `json:"name"`
				} `json:"teams"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the teams page: %w", err)
		}
		for _, team := range page.Embedded.Teams {
			if _, there := p.ids["team"][team.ID]; there {
				p.sum.Skipped["teams"]++
				continue
			}
			var members []int64
			var missing error
			err := p.src.Pages(p.ctx, fmt.Sprintf("/v2/teams/%d/members", team.ID), func(body []byte) error {
				var page struct {
					Embedded struct {
						Users []struct {
							ID    int64  `json:"id"`
							Email string `json:"email"`
						} `json:"users"`
					} `json:"_embedded"`
				}
				if err := json.Unmarshal(body, &page); err != nil {
					return fmt.Errorf("team %d's members: %w", team.ID, err)
				}
				for _, u := range page.Embedded.Users {
					id, ok := p.ids["user"][u.ID]
					if !ok {
						missing = fmt.Errorf("its member %s is a user the pull did not copy", u.Email)
					}
					members = append(members, id)
				}
				return nil
			})
			if errors.Is(err, ErrRefused) {
				p.sum.refuse("teams", team.ID, err)
				continue
			}
			if err != nil {
				return err
			}
			p.copyOnce("team", "teams", team.ID, func(tx parley.Tx) (int64, error) {
				if missing != nil {
					return 0, missing
				}
				made, err := parley.CreateTeam(tx, p.caller.Company.ID, team.Name, members, p.opt.Now())
				if err != nil {
					return 0, err
				}
				return made.ID, nil
			})
		}
		return nil
	})
}

// pullWebhooks copies the webhooks, disabled (see parley.CopyWebhook).
func (p *puller) pullWebhooks() error {
	return p.src.Pages(p.ctx, "/v2/webhooks", func(body []byte) error {
		var page struct {
			Embedded struct {
				Webhooks []struct {
					ID int64 `json:"id"`
					parley.WebhookInput
				} `json:"webhooks"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the webhooks page: %w", err)
		}
		for _, w := range page.Embedded.Webhooks {
			in := w.WebhookInput
			in.State, in.ViewID = nil, nil // views are not pulled
			mailboxes, mapErr := p.mapEach("mailbox", in.MailboxIDs)
			in.MailboxIDs = mailboxes
			p.copyOnce("webhook", "webhooks", w.ID, func(tx parley.Tx) (int64, error) {
				if mapErr != nil {
					return 0, mapErr
				}
				made, err := parley.CopyWebhook(tx, p.caller, &in, parley.WebhookPolicy{}, p.opt.Now())
				if err != nil {
					return 0, err
				}
				return made.ID, nil
			})
		}
		return nil
	})
}

// pullWorkflows copies the workflows, inactive: their conditions are the
// source's, their actions name the records the pull copied.
func (p *puller) pullWorkflows() error {
	return p.src.Pages(p.ctx, "/v2/workflows", func(body []byte) error {
		var page struct {
			Embedded struct {
				Workflows []struct {
					ID int64 `json:"id"`
				} `json:"workflows"`
			} `json:"_embedded"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return fmt.Errorf("the workflows page: %w", err)
		}
		for _, item := range page.Embedded.Workflows {
			if _, there := p.ids["workflow"][item.ID]; there {
				p.sum.Skipped["workflows"]++
				continue
			}
			// The list leaves the conditions and actions out; the
			// workflow's own answer has them.
			one, err := p.src.Get(p.ctx, "/v2/workflows/"+strconv.FormatInt(item.ID, 10))
			if errors.Is(err, ErrRefused) {
				p.sum.refuse("workflows", item.ID, err)
				continue
			}
			if err != nil {
				return err
			}
			var in parley.WorkflowInput
			if err := json.Unmarshal(one, &in); err != nil {
				return fmt.Errorf("workflow %d: %w", item.ID, err)
			}
			mapErr := p.mapWorkflow(&in)
			p.copyOnce("workflow", "workflows", item.ID, func(tx parley.Tx) (int64, error) {
				if mapErr != nil {
					return 0, mapErr
				}
				made, err := parley.CreateWorkflow(tx, p.caller, &in, workflow.Check, p.opt.Now())
				if err != nil {
					return 0, importer.Describe(err)
				}
				return made.ID, nil
			})
		}
		return nil
	})
}

// mapWorkflow turns a source workflow's ids into the target's, and makes
// it inactive.
func (p *puller) mapWorkflow(in *parley.WorkflowInput) error {
	inactive := parley.WorkflowInactive
	in.Status = &inactive
	if in.MailboxID != nil {
		id, err := p.mapOne("mailbox", *in.MailboxID)
		if err != nil {
			return err
		}
		in.MailboxID = &id
	}
	actions := make([]parley.WorkflowAction, len(in.Actions))
	for i, a := range in.Actions {
		var err error
		if a.UserID != nil && *a.UserID != 0 {
			id, userErr := p.mapOne("user", *a.UserID)
			if userErr != nil { // teams are assigned as users are
				id, userErr = p.mapOne("team", *a.UserID)
			}
			a.UserID, err = &id, userErr
		}
		for _, ref := range []struct {
			kind string
			id   *int64
		}{{"mailbox", &a.MailboxID}, {"field", &a.FieldID}, {"saved reply", &a.SavedReplyID}, {"webhook", &a.WebhookID}} {
			if err == nil && *ref.id != 0 {
				*ref.id, err = p.mapOne(ref.kind, *ref.id)
			}
		}
		if err != nil {
			return fmt.Errorf("action %d (%s): %w", i+1, a.Type, err)
		}
		actions[i] = a
	}
	in.Actions = actions
	return nil
}

// mapOne is the target's id of a source record the pull copied.
func (p *puller) mapOne(kind string, sourceID int64) (int64, error) {
	id, ok := p.ids[kind][sourceID]
	if !ok {
		return 0, fmt.Errorf("it names %s %d, which the pull did not copy", kind, sourceID)
	}
	return id, nil
}

// mapEach is mapOne of each id.
func (p *puller) mapEach(kind string, sourceIDs []int64) ([]int64, error) {
	out := make([]int64, 0, len(sourceIDs))
	for _, sourceID := range sourceIDs {
		id, err := p.mapOne(kind, sourceID)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}
