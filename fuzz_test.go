package parley

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"
	"unicode/utf8"
)

// Fuzz targets of the domain's input readers: no input may panic. Run one
// longer with: go test . -run XXX -fuzz FuzzParsePatch -fuzztime 5m

func FuzzParsePatch(f *testing.F) {
	for _, seed := range []string{
		`{"op":"replace","path":"/subject","value":"x"}`, `[{"op":"remove","path":"/assignTo"}]`, `[]`, `{}`, `null`, `"x"`,
		`[{"op":"replace","path":"/status","value":7}]`, `[{"op":"move","path":"/mailboxId","value":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ops, err := ParsePatch(body)
		if err == nil && len(ops) == 0 {
			t.Fatal("no operations without an error")
		}
		if err != nil && KindOf(err) != KindInvalid {
			t.Fatalf("a bad patch must be a validation error, got %v", err)
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, seed := range []string{"2026-11-21T12:00:00Z", "2026-11-21T12:00:00.123+02:00", "2026-13-01T00:00:00Z", "", "yesterday", "9999-12-31T23:59:59Z"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tm, ok := ParseTime(s); ok {
			if tm.Location() != time.UTC {
				t.Fatal("times are UTC")
			}
			if _, ok := ParseTime(FormatTime(tm)); !ok {
				t.Fatalf("a formatted time must parse again: %q", FormatTime(tm))
			}
		}
	})
}

// FuzzRequestBodies decodes arbitrary JSON into every request type and
// validates it: validation never panics and always answers a validation
// error or nil.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		`{"subject":"s","type":"email","mailboxId":1,"status":"active","customer":{"email":"a@b.com"},"threads":[{"type":"customer","text":"x"}]}`,
		`{"assignTo":null,"threads":[{"type":"reply","createdAt":"2020-01-01T00:00:00Z"}]}`,
		`{"text":"x","attachments":[{"fileName":"a","mimeType":"text/plain","data":"eA=="}]}`,
		`{"url":"https://example.com/hook","events":["convo.created"],"secret":"s"}`,
		`{"snoozedUntil":"2030-01-01T00:00:00Z"}`, `{"tags":["a",""]}`, `{"name":"x","email":"y"}`, `[]`, `{"customer":{}}`,
		`{"type":"page-viewed","url":"https://shop.example.com/a","title":"A"}`, `{"url":"javascript:alert(1)"}`, `{"url":" HTTP://x "}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		validations := []func() error{
			func() error { var v NewConversation; return decodeThen(body, &v, v.Validate) },
			func() error {
				var v ThreadRequest
				return decodeThen(body, &v, func() error { return v.Validate(ThreadMessage) })
			},
			func() error {
				var v WebhookInput
				return decodeThen(body, &v, func() error { return v.Validate(WebhookPolicy{}) })
			},
			func() error {
				var v SnoozeRequest
				return decodeThen(body, &v, func() error { _, err := futureTime("snoozedUntil", v.SnoozedUntil, time.Now()); return err })
			},
			func() error {
				var v TimelineRequest
				return decodeThen(body, &v, func() error {
					e, err := v.entry(time.Now())
					if err == nil && !acceptableEntry(e) {
						t.Fatalf("%s was accepted as %+v", body, e)
					}
					return err
				})
			},
		}
		for _, validate := range validations {
			if err := validate(); err != nil && KindOf(err) == KindInternal {
				t.Fatalf("validation answered an internal error: %v", err)
			}
		}
		if validWebhookURL(string(body), true) && len(body) == 0 {
			t.Fatal("an empty URL is not valid")
		}
	})
}

// decodeThen validates v when body decodes into it.
func decodeThen(body []byte, v any, validate func() error) error {
	if json.Unmarshal(body, v) != nil {
		return nil
	}
	return validate()
}

// acceptableEntry reports whether a timeline entry keeps the rules of
// TimelineRequest: an absolute http or https URL and fields within bounds.
func acceptableEntry(e TimelineEntry) bool {
	u, err := url.Parse(e.URL)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && len(e.URL) <= MaxTimelineURL &&
		e.Type != "" && utf8.RuneCountInString(e.Type) <= MaxTimelineType && utf8.RuneCountInString(e.Title) <= MaxTimelineTitle
}
