package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// transition handles POST /transition (Config.TransitionPath): the
// exchange of a V1 API key for an OAuth token. Errors answer
// {status, message} as Help Scout's docs say.
func (s *Server) transition(c *gin.Context) error {
	var req struct {
		APIKey   string `json:"apiKey"`
		ClientID string `json:"clientId"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	// Two budgets, as at the token endpoint: failed exchanges per client
	// address, and exchanges per client id. Each is taken before the
	// exchange and given back when the exchange shows it was not for it
	// (a success, a failure), so junk from one address never spends a
	// real client's budget beyond the moment it is being answered.
	now, failKey, clientKey := s.now(), budgetV1Fail+c.ClientIP(), budgetV1Client+req.ClientID
	if d := s.limits.take(failKey, s.cfg.TokenRateLimit, 1, now); !s.setRateHeaders(c, d) {
		return rateLimited(d)
	}
	if d := s.limits.take(clientKey, s.cfg.TokenRateLimit, 1, now); !s.setRateHeaders(c, d) {
		s.limits.refund(failKey, 1, now)
		return rateLimited(d)
	}
	var issued parley.Issued
	err := s.writeCommittingRefusal(c, func(tx parley.Tx) error {
		var err error
		issued, err = parley.ExchangeV1Key(tx, req.APIKey, req.ClientID, now)
		return err
	})
	if err != nil {
		s.limits.refund(clientKey, 1, now)
		if parley.IsFailure(err) {
			s.limits.refund(failKey, 1, now)
		}
		return err
	}
	s.limits.refund(failKey, 1, now)
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, struct {
		AccessToken  string `json:"accessToken"`
		ExpiresIn    int    `json:"expiresIn"`
		RefreshToken string `json:"refreshToken"`
	}{issued.AccessToken, issued.ExpiresIn, issued.RefreshToken})
	return nil
}
