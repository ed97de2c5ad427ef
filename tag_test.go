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

// write runs fn as the world's owner in one write of its store.
func (w *world) write(fn func(tx parley.Tx) error) error {
	_, err := w.st.Update(context.Background(), fn)
	return err
}

// plainUser is a caller of the world's company with the user role.
func (w *world) plainUser(t *testing.T) parley.Caller {
	t.Helper()
	u := &parley.User{CompanyID: w.caller.Company.ID, FirstName: "Pat", Email: "pat@acme.test", Role: parley.RoleUser, Active: true}
	require.NoError(t, w.write(func(tx parley.Tx) error { return tx.PutUser(u) }))
	return parley.Caller{Company: w.caller.Company, User: u}
}

// events lists the kinds of the events the world's company recorded.
func (w *world) events(t *testing.T) []string {
	t.Helper()
	var kinds []string
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		events, err := tx.PendingEvents(10000)
		for _, e := range events {
			kinds = append(kinds, e.Event.Kind)
		}
		return err
	}))
	return kinds
}

func (w *world) tagNames(t *testing.T, convID int64) []string {
	t.Helper()
	c, _ := w.load(t, convID)
	var names []string
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		for _, id := range c.TagIDs {
			tag, err := tx.Tag(c.CompanyID, id)
			if err != nil {
				return err
			}
			names = append(names, tag.Name)
		}
		return nil
	}))
	return names
}

func TestReplaceTags(t *testing.T) {
	w, id := oneConversation(t, "active")
	tests := []struct {
		name  string
		names []string
		want  []string
		code  string
	}{
		{"new names create tags, normalized", []string{" Refund ", "VIP"}, []string{"refund", "vip"}, ""},
		{"replaces all", []string{"billing"}, []string{"billing"}, ""},
		{"an empty list removes every tag", []string{}, nil, ""},
		{"null is refused", nil, nil, parley.CodeNullValue},
		{"an empty name is refused", []string{" "}, nil, parley.CodeEmptyValue},
		{"too long a name", []string{strings.Repeat("x", parley.MaxTagLength+1)}, nil, parley.CodeSize},
		{"too many", make([]string, parley.MaxTags+1), nil, parley.CodeSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := w.write(func(tx parley.Tx) error { return parley.ReplaceTags(tx, w.caller, id, tt.names, ruleNow) })
			if tt.code != "" {
				assert.Equal(t, tt.code, code(t, err))
				return
			}
			require.NoError(t, err)
			assert.ElementsMatch(t, tt.want, w.tagNames(t, id))
		})
	}
	err := w.write(func(tx parley.Tx) error { return parley.ReplaceTags(tx, w.caller, id+1000, []string{"x"}, ruleNow) })
	assert.True(t, parley.IsNotFound(err), "an unknown conversation")
}

func TestUpdateTag(t *testing.T) {
	w, id := oneConversation(t, "active")
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.ReplaceTags(tx, w.caller, id, []string{"refund", "vip"}, ruleNow)
	}))
	var refund, vip int64
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		r, err := tx.TagByName(w.caller.Company.ID, "refund")
		if err != nil {
			return err
		}
		v, err := tx.TagByName(w.caller.Company.ID, "vip")
		refund, vip = r.ID, v.ID
		return err
	}))
	update := func(caller parley.Caller, tagID int64, in parley.TagInput) error {
		return w.write(func(tx parley.Tx) error { return parley.UpdateTag(tx, caller, tagID, &in, ruleNow) })
	}
	tests := []struct {
		name   string
		caller parley.Caller
		tag    int64
		in     parley.TagInput
		kind   parley.Kind
		code   string
	}{
		{"nothing to change", w.caller, refund, parley.TagInput{}, parley.KindInvalid, parley.CodeNullValue},
		{"an empty name", w.caller, refund, parley.TagInput{Name: parley.Ptr("  ")}, parley.KindInvalid, parley.CodeSize},
		{"a colour that is not #rrggbb", w.caller, refund, parley.TagInput{Color: parley.Ptr("red")}, parley.KindInvalid, parley.CodeValueNotSupported},
		{"another tag's name", w.caller, refund, parley.TagInput{Name: parley.Ptr("VIP")}, parley.KindConflict, parley.CodeConflict},
		{"a plain user may not", w.plainUser(t), refund, parley.TagInput{Name: parley.Ptr("refunds")}, parley.KindForbidden, parley.CodeAccessDenied},
		{"an unknown tag", w.caller, vip + 1000, parley.TagInput{Name: parley.Ptr("x")}, parley.KindNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := update(tt.caller, tt.tag, tt.in)
			require.Error(t, err)
			assert.Equal(t, tt.kind, parley.KindOf(err))
			if tt.code != "" {
				assert.Equal(t, tt.code, code(t, err))
			}
		})
	}
	require.NoError(t, update(w.caller, refund, parley.TagInput{Name: parley.Ptr(" Refunds "), Color: parley.Ptr("#AA00ff")}))
	assert.ElementsMatch(t, []string{"refunds", "vip"}, w.tagNames(t, id), "the conversation carries the new name")
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		tag, err := tx.Tag(w.caller.Company.ID, refund)
		require.NoError(t, err)
		assert.Equal(t, []string{"refunds", "refunds", "#aa00ff"}, []string{tag.Name, tag.Slug, tag.Color})
		return nil
	}))
	assert.Contains(t, w.events(t), parley.EventTagUpdated)
}

func TestDeleteTag(t *testing.T) {
	w, id := oneConversation(t, "active")
	require.NoError(t, w.write(func(tx parley.Tx) error {
		return parley.ReplaceTags(tx, w.caller, id, []string{"refund", "vip"}, ruleNow)
	}))
	var refund int64
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		r, err := tx.TagByName(w.caller.Company.ID, "refund")
		refund = r.ID
		return err
	}))
	plain := w.plainUser(t)
	err := w.write(func(tx parley.Tx) error { return parley.DeleteTag(tx, plain, refund, ruleNow) })
	assert.Equal(t, parley.KindForbidden, parley.KindOf(err), "a plain user may not delete tags")

	later := ruleNow.Add(time.Hour)
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteTag(tx, w.caller, refund, later) }))
	assert.Equal(t, []string{"vip"}, w.tagNames(t, id), "the tag left the conversation")
	c, _ := w.load(t, id)
	assert.Equal(t, later, c.ModifiedAt, "the conversation changed")
	assert.True(t, parley.IsNotFound(w.st.View(context.Background(), func(tx parley.Tx) error {
		_, err := tx.Tag(w.caller.Company.ID, refund)
		return err
	})))
	assert.Contains(t, w.events(t), parley.EventTagDeleted)
	err = w.write(func(tx parley.Tx) error { return parley.DeleteTag(tx, w.caller, refund, later) })
	assert.True(t, parley.IsNotFound(err), "deleting twice")
}

func TestTagSlugAndName(t *testing.T) {
	for name, want := range map[string][2]string{
		" Damaged Item ":   {"damaged item", "damaged-item"},
		"Feature  Request": {"feature  request", "feature-request"},
		"VIP":              {"vip", "vip"},
	} {
		assert.Equal(t, want[0], parley.NormalizeTagName(name))
		assert.Equal(t, want[1], parley.TagSlug(name), name)
	}
}
