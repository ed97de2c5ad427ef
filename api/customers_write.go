package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// createCustomer handles POST /v2/customers.
func (s *Server) createCustomer(c *gin.Context) error {
	var in parley.NewCustomerRequest
	err := decodeJSON(c, &in)
	if err == nil {
		err = in.Validate()
	}
	if err != nil {
		return err
	}
	var cu *parley.Customer
	err = s.write(c, func(tx parley.Tx) error {
		cu, err = parley.CreateCustomer(tx, caller(c).Company.ID, &in, s.now())
		return err
	})
	if err != nil {
		return err
	}
	s.created(c, cu.ID, s.url(c, "v2", "customers", cu.ID))
	return nil
}

// created answers 201 with Resource-ID and Location.
func (s *Server) created(c *gin.Context, id int64, location string) {
	c.Header("Resource-ID", strconv.FormatInt(id, 10))
	c.Header("Location", location)
	c.Status(http.StatusCreated)
}

// customerWrite runs a write on the customer of the path: it reads the id,
// runs fn in a write transaction and answers 204.
func (s *Server) customerWrite(c *gin.Context, fn func(tx parley.Tx, companyID, id int64) error) error {
	id, err := pathID(c, "customerId")
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error { return fn(tx, caller(c).Company.ID, id) })
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// overwriteCustomer handles PUT /v2/customers/{customerId}.
func (s *Server) overwriteCustomer(c *gin.Context) error {
	var in parley.CustomerFields
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.OverwriteCustomer(tx, companyID, id, &in, s.now())
	})
}

// patchCustomer handles PATCH /v2/customers/{customerId}: a JSON array of
// patch operations, nothing else.
func (s *Server) patchCustomer(c *gin.Context) error {
	ops, err := decodePatchArray(c)
	if err != nil {
		return err
	}
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.PatchCustomer(tx, companyID, id, ops, s.now())
	})
}

// decodePatchArray reads a body that must be a JSON array of operations.
func decodePatchArray(c *gin.Context) ([]parley.PatchOp, error) {
	var ops []parley.PatchOp
	if err := decodeJSON(c, &ops); err != nil {
		var e *parley.Error
		if parley.KindOf(err) == parley.KindInvalid {
			e = parley.Invalid("JSON", "", parley.CodeInvalidJSON, "the body must be a JSON array of patch operations {op, path, value}", nil)
			return nil, e
		}
		return nil, err
	}
	return ops, nil
}

// deleteCustomer handles DELETE /v2/customers/{customerId}.
func (s *Server) deleteCustomer(c *gin.Context) error {
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.DeleteCustomer(tx, companyID, id, s.now())
	})
}

// entryKind reads the collection of the route (set when registering it).
func entryKind(c *gin.Context) parley.EntryKind {
	k, _ := parley.EntryKindOf(c.GetString(keyEntryKind))
	return k
}

const keyEntryKind = "parley.entryKind"

// withEntryKind marks a route with its entry collection.
func withEntryKind(segment string, h handler) handler {
	return func(c *gin.Context) error { c.Set(keyEntryKind, segment); return h(c) }
}

// addEntry handles POST /v2/customers/{customerId}/{emails|phones|chats|social-profiles|websites}.
func (s *Server) addEntry(c *gin.Context) error {
	var in parley.EntryInput
	id, err := pathID(c, "customerId")
	if err == nil {
		err = decodeJSON(c, &in)
	}
	var e *parley.Entry
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			e, err = parley.AddEntry(tx, caller(c).Company.ID, id, entryKind(c), &in, s.now())
			return err
		})
	}
	if err != nil {
		return err
	}
	s.created(c, e.ID, s.url(c, "v2", "customers", id, entryKind(c).Segment, e.ID))
	return nil
}

// replaceEntry handles PUT /v2/customers/{customerId}/{collection}/{entryId}.
func (s *Server) replaceEntry(c *gin.Context) error {
	var in parley.EntryInput
	entryID, err := pathID(c, "entryId")
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err != nil {
		return err
	}
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.ReplaceEntry(tx, companyID, id, entryKind(c), entryID, &in, s.now())
	})
}

// deleteEntry handles DELETE /v2/customers/{customerId}/{collection}/{entryId}.
func (s *Server) deleteEntry(c *gin.Context) error {
	entryID, err := pathID(c, "entryId")
	if err != nil {
		return err
	}
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.RemoveEntry(tx, companyID, id, entryKind(c), entryID, s.now())
	})
}

// listEntries handles GET /v2/customers/{customerId}/{emails|phones|...}:
// the customer's entries of one kind, each with its own link, embedded under
// the segment's own name (`_embedded.social-profiles`, as Help Scout's docs
// and the PHP SDK read it; the customer itself embeds `social_profiles`).
func (s *Server) listEntries(c *gin.Context) error {
	k := entryKind(c)
	id, err := pathID(c, "customerId")
	if err == nil {
		err = readParams(c).err()
	}
	var list []parley.Entry
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			cu, err := tx.Customer(caller(c).Company.ID, id)
			if err == nil {
				list = *cu.Entries(k)
			}
			return err
		})
	}
	if err != nil {
		return err
	}
	self := s.url(c, "v2", "customers", id, k.Segment)
	type entryResource struct {
		Links selfLinks `json:"_links"`
		entryView
	}
	items := make([]entryResource, 0, len(list))
	for _, e := range list {
		item := entryResource{Links: selfLinks{link(self + "/" + strconv.FormatInt(e.ID, 10))}, entryView: entryView{ID: e.ID, Value: e.Value}}
		if k.Typed() {
			item.Type = e.Type
		}
		items = append(items, item)
	}
	render(c, http.StatusOK, newList(k.Segment, self, items))
	return nil
}

// getAddress handles GET /v2/customers/{customerId}/address.
func (s *Server) getAddress(c *gin.Context) error {
	id, err := pathID(c, "customerId")
	var body addressView
	if err == nil {
		err = s.store.View(c.Request.Context(), func(tx parley.Tx) error {
			cu, err := tx.Customer(caller(c).Company.ID, id)
			if err == nil && cu.Address == nil {
				err = parley.NotFound("address")
			}
			if err == nil {
				body = addressResource(cu.Address)
				body.Links = &addressLinks{Self: link(s.url(c, "v2", "customers", id, "address")),
					Customer: link(s.url(c, "v2", "customers", id))}
			}
			return err
		})
	}
	if err != nil {
		return err
	}
	render(c, http.StatusOK, body)
	return nil
}

// createAddress handles POST /v2/customers/{customerId}/address: 201 with
// the address as Location; a customer who has one answers 409.
func (s *Server) createAddress(c *gin.Context) error {
	var in parley.AddressInput
	id, err := pathID(c, "customerId")
	if err == nil {
		err = decodeJSON(c, &in)
	}
	if err == nil {
		err = s.write(c, func(tx parley.Tx) error {
			return parley.CreateAddress(tx, caller(c).Company.ID, id, &in, s.now())
		})
	}
	if err != nil {
		return err
	}
	c.Header("Location", s.url(c, "v2", "customers", id, "address"))
	c.Status(http.StatusCreated)
	return nil
}

// putAddress handles PUT /v2/customers/{customerId}/address.
func (s *Server) putAddress(c *gin.Context) error {
	var in parley.AddressInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.SetAddress(tx, companyID, id, &in, s.now())
	})
}

// deleteAddress handles DELETE /v2/customers/{customerId}/address.
func (s *Server) deleteAddress(c *gin.Context) error {
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.RemoveAddress(tx, companyID, id, s.now())
	})
}

// patchProperties handles PATCH /v2/customers/{customerId}/properties.
func (s *Server) patchProperties(c *gin.Context) error {
	ops, err := decodePatchArray(c)
	if err != nil {
		return err
	}
	return s.customerWrite(c, func(tx parley.Tx, companyID, id int64) error {
		return parley.PatchProperties(tx, companyID, id, ops, s.now())
	})
}
