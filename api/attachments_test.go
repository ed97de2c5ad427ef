package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pngBytes(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, x%h, color.RGBA{R: uint8(x), G: 99, B: 200, A: 255})
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func attachmentJSON(name, mime string, data []byte) map[string]any {
	return map[string]any{"fileName": name, "mimeType": mime, "data": base64.StdEncoding.EncodeToString(data)}
}

func reply(body map[string]any) string {
	b, _ := json.Marshal(body)
	return string(b)
}

func errorCode(t *testing.T, body map[string]any) string {
	return field(t, body, "_embedded", "errors").([]any)[0].(map[string]any)["code"].(string)
}

func TestAttachmentsRoundTrip(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	img := pngBytes(t, 40, 30)
	w.send("POST", path+"/reply", reply(map[string]any{"text": "See the screenshot.", "attachments": []any{attachmentJSON("shot.png", "image/png", img)}}), http.StatusCreated)

	c := w.conv(id)
	atts := c["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)["_embedded"].(map[string]any)["attachments"].([]any)
	require.Len(t, atts, 1)
	a := atts[0].(map[string]any)
	assert.Equal(t, map[string]any{"id": float64(1), "filename": "shot.png", "mimeType": "image/png", "size": float64(len(img)),
		"width": float64(40), "height": float64(30), "state": "ok", "_links": map[string]any{
			"data":     map[string]any{"href": fmt.Sprintf("https://api.parley.test/v2/conversations/%d/attachments/1/data", id)},
			"download": map[string]any{"href": fmt.Sprintf("https://api.parley.test/v2/conversations/%d/attachments/1/download", id)},
		}}, a)
	assert.True(t, w.found(id, "attachments:true"))

	data := decode(t, w.get(path+"/attachments/1/data"))
	got, err := base64.StdEncoding.DecodeString(data["data"].(string))
	require.NoError(t, err)
	assert.Equal(t, img, got, "byte for byte")
	raw := w.get(path + "/attachments/1/download")
	assert.Equal(t, "image/png", raw.Header().Get("Content-Type"))
	assert.Equal(t, `attachment; filename=shot.png`, raw.Header().Get("Content-Disposition"))
	assert.Equal(t, img, raw.Body.Bytes())

	// Attaching to an existing thread.
	rec := w.do(request{method: "POST", path: path + "/threads/1/attachments", token: ownerToken, body: reply(attachmentJSON("notes.txt", "text/plain", []byte("plain text")))})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, "2", rec.Header().Get("Resource-ID"))
	assert.Equal(t, "plain text", w.get(path+"/attachments/2/download").Body.String())

	// Another company cannot read it.
	assert.Equal(t, http.StatusNotFound, w.do(request{method: "GET", path: path + "/attachments/1/data", token: globexToken}).Code)
}

func TestInfectedAttachment(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	eicar := []byte(`X5O!P%@AP[4\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*`)
	w.send("POST", path+"/notes", reply(map[string]any{"text": "Suspicious file", "attachments": []any{attachmentJSON("invoice.exe", "application/octet-stream", eicar)}}), http.StatusCreated)
	a := w.conv(id)["_embedded"].(map[string]any)["threads"].([]any)[0].(map[string]any)["_embedded"].(map[string]any)["attachments"].([]any)[0].(map[string]any)
	assert.Equal(t, "virus", a["state"])
	assert.NotContains(t, a, "_links")
	for _, kind := range []string{"data", "download"} {
		rec := w.get(path + "/attachments/1/" + kind)
		assert.Equal(t, http.StatusGone, rec.Code)
		assert.Equal(t, "Infected Attachment", errorCode(t, decode(t, rec)))
	}
}

func TestAttachmentLimits(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d/reply", id)
	const tenMB = 10 << 20
	ok := bytes.Repeat([]byte("a"), tenMB)
	w.send("POST", path, reply(map[string]any{"text": "big", "attachments": []any{attachmentJSON("big.bin", "application/octet-stream", ok)}}), http.StatusCreated)
	for _, tc := range []struct {
		name string
		att  map[string]any
		code string
	}{
		{"10 MB + 1 byte", attachmentJSON("big.bin", "application/octet-stream", append(ok, 'b')), "Invalid Attachment"},
		{"bad base64", map[string]any{"fileName": "x.txt", "mimeType": "text/plain", "data": "not base64!"}, "Invalid Attachment"},
		{"no data", map[string]any{"fileName": "x.txt", "mimeType": "text/plain"}, "Invalid Attachment"},
		{"partial mime type", attachmentJSON("x.png", "png", []byte("x")), "Invalid Mime-Type"},
		{"wildcard mime type", attachmentJSON("x.png", "image/*", []byte("x")), "Invalid Mime-Type"},
		{"no file name", attachmentJSON("", "text/plain", []byte("x")), "Empty value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := w.send("POST", path, reply(map[string]any{"text": "x", "attachments": []any{tc.att}}), http.StatusBadRequest)
			assert.Equal(t, tc.code, errorCode(t, body))
		})
	}
	huge := `{"text":"x","attachments":[{"fileName":"x","mimeType":"text/plain","data":"` + strings.Repeat("A", 15<<20) + `"}]}`
	body := w.send("POST", path, huge, http.StatusRequestEntityTooLarge)
	assert.Equal(t, "Request too large", errorCode(t, body))
}

func TestDeleteAttachment(t *testing.T) {
	w := newWorld(t)
	id := w.create(convJSON(nil))
	path := fmt.Sprintf("/v2/conversations/%d", id)
	file := attachmentJSON("a.txt", "text/plain", []byte("hello"))
	w.send("POST", path+"/reply", reply(map[string]any{"text": "sent", "attachments": []any{file}}), http.StatusCreated)
	w.send("POST", path+"/reply", reply(map[string]any{"text": "draft", "draft": true, "attachments": []any{file}}), http.StatusCreated)

	body := w.send("DELETE", path+"/attachments/1", "", http.StatusBadRequest)
	assert.Equal(t, "Cannot delete attachment from published conversation", errorCode(t, body))
	w.send("DELETE", path+"/attachments/2", "", http.StatusNoContent)
	assert.Equal(t, "404 Not found: attachment not found", apiError(t, w.get(path+"/attachments/2/data")))
	kept := w.get(path + "/attachments/1/data")
	require.Equal(t, http.StatusOK, kept.Code, kept.Body.String())
	assert.Equal(t, `{"data":"aGVsbG8="}`, kept.Body.String())
	w.send("DELETE", path+"/attachments/2", "", http.StatusNotFound)
}
