package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
	"github.com/parley/parley/storage"
)

// transition handles POST /transition (Config.TransitionPath): the
// exchange of a V1 API key for an OAuth token. Errors answer
// {status, message} as SPEC says.
func (s *Server) transition(c *gin.Context) {
	var req struct {
		APIKey   string `json:"apiKey"`
		ClientID string `json:"clientId"`
	}
	if err := decodeJSON(c, &req); err != nil {
		s.failV1(c, err)
		return
	}
	if d := s.takeClient(c, "v1:", req.ClientID); !s.setRateHeaders(c, d) {
		s.failV1(c, rateLimited(d))
		return
	}
	now := s.now()
	var issued parley.Issued
	err := s.writeCommittingRefusal(c, func(tx *storage.Tx) error {
		var err error
		issued, err = parley.ExchangeV1Key(tx, req.APIKey, req.ClientID, now)
		return err
	})
	if err != nil {
		s.failV1(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, gin.H{"accessToken": issued.AccessToken, "expiresIn": issued.ExpiresIn, "refreshToken": issued.RefreshToken})
}
