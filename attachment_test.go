package parley_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	parley "github.com/parley/parley"
)

// attachment is an input for a file of the given bytes.
func attachment(name, mime string, data []byte) parley.AttachmentInput {
	return parley.AttachmentInput{FileName: parley.Ptr(name), MimeType: parley.Ptr(mime), Data: parley.Ptr(base64.StdEncoding.EncodeToString(data))}
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.Black)
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func TestAttachments(t *testing.T) {
	w, id := oneConversation(t, "active")
	var draft, published *parley.Thread
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		if draft, err = parley.AddThread(tx, w.caller, id, parley.ThreadMessage, &parley.ThreadRequest{Text: parley.Ptr("Draft"), Draft: true}, parley.EICARScanner{}, ruleNow); err != nil {
			return err
		}
		published, err = parley.AddThread(tx, w.caller, id, parley.ThreadNote, &parley.ThreadRequest{Text: parley.Ptr("Note")}, parley.EICARScanner{}, ruleNow)
		return err
	}))
	add := func(threadID int64, inputs ...parley.AttachmentInput) ([]int64, error) {
		var ids []int64
		err := w.write(func(tx parley.Tx) (err error) {
			ids, err = parley.AddAttachments(tx, w.caller, id, threadID, inputs, parley.EICARScanner{}, ruleNow)
			return err
		})
		return ids, err
	}
	bad := []struct {
		name   string
		inputs []parley.AttachmentInput
		code   string
	}{
		{"none", nil, parley.CodeEmptyValue},
		{"no file name", []parley.AttachmentInput{attachment(" ", "text/plain", []byte("x"))}, parley.CodeEmptyValue},
		{"not a MIME type", []parley.AttachmentInput{attachment("a.txt", "text", []byte("x"))}, parley.CodeInvalidMimeType},
		{"not Base64", []parley.AttachmentInput{{FileName: parley.Ptr("a.txt"), MimeType: parley.Ptr("text/plain"), Data: parley.Ptr("%%%")}}, parley.CodeInvalidAttachment},
		{"over 10 MB", []parley.AttachmentInput{attachment("big.bin", "application/octet-stream", make([]byte, parley.MaxAttachmentBytes+1))}, parley.CodeInvalidAttachment},
	}
	for _, tt := range bad {
		_, err := add(draft.ID, tt.inputs...)
		assert.Equal(t, tt.code, code(t, err), tt.name)
	}

	ids, err := add(draft.ID, attachment(" shot.png ", "image/png", pngOf(t, 3, 2)),
		attachment("eicar.com", "application/octet-stream", []byte(`X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`)))
	require.NoError(t, err)
	require.Len(t, ids, 2)
	require.NoError(t, w.st.View(context.Background(), func(tx parley.Tx) error {
		a, data, err := parley.ReadAttachment(tx, w.caller, id, ids[0], ruleNow)
		require.NoError(t, err)
		assert.Equal(t, []any{"shot.png", "image/png", 3, 2, parley.AttachmentOK}, []any{a.FileName, a.MimeType, a.Width, a.Height, a.State})
		assert.Equal(t, pngOf(t, 3, 2), data)
		_, _, err = parley.ReadAttachment(tx, w.caller, id, ids[1], ruleNow)
		assert.Equal(t, parley.KindGone, parley.KindOf(err), "a malicious file is kept without its data")
		_, _, err = parley.ReadAttachment(tx, w.caller, id+1000, ids[0], ruleNow)
		assert.True(t, parley.IsNotFound(err), "only through its own conversation")
		return nil
	}))

	noteFile, err := add(published.ID, attachment("n.txt", "text/plain", []byte("note")))
	require.NoError(t, err)
	err = w.write(func(tx parley.Tx) error { return parley.DeleteAttachment(tx, w.caller, id, noteFile[0], ruleNow) })
	assert.Equal(t, parley.CodeAttachmentPublished, code(t, err), "a published thread keeps its files")
	require.NoError(t, w.write(func(tx parley.Tx) error { return parley.DeleteAttachment(tx, w.caller, id, ids[0], ruleNow) }))
	_, threads := w.load(t, id)
	for _, th := range threads {
		if th.ID == draft.ID {
			assert.Equal(t, []int64{ids[1]}, th.Attachments, "the draft lists what remains")
		}
	}
	err = w.write(func(tx parley.Tx) error { return parley.DeleteAttachment(tx, w.caller, id, ids[0], ruleNow) })
	assert.True(t, parley.IsNotFound(err), "deleting twice")
}

// TestStoreAttachments stores files on a thread being built (as a create
// does), keeping the ids it had.
func TestStoreAttachments(t *testing.T) {
	w, id := oneConversation(t, "active")
	_, threads := w.load(t, id)
	th := threads[0]
	th.Attachments = []int64{99}
	var ids []int64
	require.NoError(t, w.write(func(tx parley.Tx) (err error) {
		ids, err = parley.StoreAttachments(tx, &th, []parley.AttachmentInput{attachment("a.txt", "text/plain", []byte("a"))}, nil)
		return err
	}))
	require.Len(t, ids, 2)
	assert.Equal(t, int64(99), ids[0], "the thread's ids first")
	err := w.write(func(tx parley.Tx) error {
		_, err := parley.StoreAttachments(tx, &th, []parley.AttachmentInput{{FileName: parley.Ptr("b"), MimeType: parley.Ptr("text/plain"), Data: parley.Ptr("!")}}, nil)
		return err
	})
	assert.Equal(t, parley.CodeInvalidAttachment, code(t, err))
}
