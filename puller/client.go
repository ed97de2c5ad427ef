// Package puller copies an account from a server that speaks the Help
// Scout Mailbox API 2.0 (Help Scout itself, or another Parley) into a
// Parley company: it signs in with the OAuth2 client-credentials grant,
// reads the HAL list pages (https://developer.helpscout.com/mailbox-api/)
// and writes what they hold through the importer, which keeps ids,
// numbers and dates where they are free. Each record written is noted in
// the company's map of the source's ids (parley.PullStore) in the same
// write, so a run cut off anywhere goes on where it stopped, and a run
// after one that finished asks only for what changed since.
//
// The client respects the source's rate limit: a 429 answer is retried
// after the wait its Retry-After or X-RateLimit-Retry-After header names,
// and transient failures (5xx answers, broken connections) are retried
// with a bounded exponential backoff.
package puller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultSource is Help Scout's API base URL.
const DefaultSource = "https://api.helpscout.net"

// Client reads a Mailbox API 2.0 server as one OAuth2 application.
type Client struct {
	// Base is the server's base URL, without the /v2.
	Base string
	// ClientID and ClientSecret are the application's credentials.
	ClientID, ClientSecret string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// Sleep waits between attempts; nil means a wait that ends early when
	// the context does.
	Sleep func(ctx context.Context, d time.Duration) error
	// Attempts bounds the tries of one request (0 means 6).
	Attempts int

	token string
}

// maxBackoff caps the wait between two attempts after a transient failure.
const maxBackoff = 30 * time.Second

// ErrRefused is an answer the source gives that a retry will not change
// (4xx other than 429).
var ErrRefused = errors.New("the source refused the request")

// Get fetches path (starting with /v2/) and returns the answer's body,
// signing in first, and again once if the token was refused.
func (c *Client) Get(ctx context.Context, path string) ([]byte, error) {
	if c.token == "" {
		if err := c.signIn(ctx); err != nil {
			return nil, err
		}
	}
	body, status, err := c.do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.Base, "/")+path, nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+c.token)
			req.Header.Set("Accept", "application/hal+json")
		}
		return req, err
	})
	if status == http.StatusUnauthorized {
		// The token expired mid-pull: sign in again, once.
		if err := c.signIn(ctx); err != nil {
			return nil, err
		}
		return c.Get(ctx, path)
	}
	return body, err
}

// signIn gets an access token with the client-credentials grant.
func (c *Client) signIn(ctx context.Context) error {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ClientID}, "client_secret": {c.ClientSecret}}
	body, _, err := c.do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.Base, "/")+"/v2/oauth2/token",
			strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return req, err
	})
	if err != nil {
		return fmt.Errorf("sign in to %s: %w", c.Base, err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		return fmt.Errorf("sign in to %s: the answer holds no access_token", c.Base)
	}
	c.token = tok.AccessToken
	return nil
}

// do sends the request newRequest makes until it gets an answer that is
// neither a 429 nor transient, or the attempts run out.
func (c *Client) do(ctx context.Context, newRequest func() (*http.Request, error)) ([]byte, int, error) {
	client, sleep, attempts := c.HTTP, c.Sleep, c.Attempts
	if client == nil {
		client = http.DefaultClient
	}
	if sleep == nil {
		sleep = sleepContext
	}
	if attempts <= 0 {
		attempts = 6
	}
	backoff := time.Second
	var last error
	for try := 1; ; try++ {
		req, err := newRequest()
		if err != nil {
			return nil, 0, err
		}
		wait := backoff
		res, err := client.Do(req)
		if err == nil {
			body, readErr := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case res.StatusCode == http.StatusTooManyRequests:
				last = fmt.Errorf("%s %s: rate limited (429)", req.Method, req.URL.Path)
				if d, ok := retryAfter(res.Header); ok {
					wait = d
				}
			case res.StatusCode >= 500:
				last = fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, res.Status)
			case readErr != nil:
				last = fmt.Errorf("%s %s: read the answer: %w", req.Method, req.URL.Path, readErr)
			case res.StatusCode >= 400:
				return body, res.StatusCode, fmt.Errorf("%w: %s %s: %s: %s", ErrRefused, req.Method, req.URL.Path, res.Status, abbreviate(body))
			default:
				return body, res.StatusCode, nil
			}
		} else {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			last = err
		}
		if try >= attempts {
			return nil, 0, fmt.Errorf("after %d attempts: %w", try, last)
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, 0, err
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// retryAfter reads the wait a 429 answer asks for, in seconds (Help
// Scout's docs name X-RateLimit-Retry-After; Retry-After is HTTP's).
func retryAfter(h http.Header) (time.Duration, bool) {
	for _, name := range []string{"X-RateLimit-Retry-After", "Retry-After"} {
		if s, err := strconv.Atoi(strings.TrimSpace(h.Get(name))); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, true
		}
	}
	return 0, false
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// abbreviate quotes the start of an answer for a message.
func abbreviate(body []byte) string {
	const most = 200
	if len(body) > most {
		return string(body[:most]) + "..."
	}
	return string(body)
}

// Pages fetches every page of a list (path without a page parameter) and
// calls fn with each page's body, in order.
func (c *Client) Pages(ctx context.Context, path string, fn func(body []byte) error) error {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	for n := 1; ; n++ {
		body, err := c.Get(ctx, fmt.Sprintf("%s%spage=%d", path, sep, n))
		if err != nil {
			return err
		}
		var p struct {
			Page struct {
				Number     int `json:"number"`
				TotalPages int `json:"totalPages"`
			} `json:"page"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			return fmt.Errorf("%s page %d: %w", path, n, err)
		}
		if err := fn(body); err != nil {
			return err
		}
		if n >= p.Page.TotalPages {
			return nil
		}
	}
}
