package api

import (
	"github.com/gin-gonic/gin"

	parley "github.com/parley/parley"
)

// customerRoutes registers the customer, customer property and
// organization routes under v2, and the v3 customer list.
func (s *Server) customerRoutes(v2 *gin.RouterGroup) {
	v2.GET("/customers", s.listCustomers)
	v2.POST("/customers", s.createCustomer)
	v2.GET("/customers/:customerId", s.getCustomer)
	v2.PUT("/customers/:customerId", s.overwriteCustomer)
	v2.PATCH("/customers/:customerId", s.patchCustomer)
	v2.DELETE("/customers/:customerId", s.deleteCustomer)
	for _, k := range parley.EntryKinds {
		v2.GET("/customers/:customerId/"+k.Segment, withEntryKind(k.Segment, s.listEntries))
		v2.POST("/customers/:customerId/"+k.Segment, withEntryKind(k.Segment, s.addEntry))
		v2.PUT("/customers/:customerId/"+k.Segment+"/:entryId", withEntryKind(k.Segment, s.replaceEntry))
		v2.DELETE("/customers/:customerId/"+k.Segment+"/:entryId", withEntryKind(k.Segment, s.deleteEntry))
	}
	v2.GET("/customers/:customerId/address", s.getAddress)
	v2.POST("/customers/:customerId/address", s.createAddress)
	v2.PUT("/customers/:customerId/address", s.putAddress)
	v2.DELETE("/customers/:customerId/address", s.deleteAddress)
	v2.PATCH("/customers/:customerId/properties", s.patchProperties)
	v2.GET("/customer-properties", s.listCustomerProperties)
	v2.POST("/customer-properties", s.createCustomerProperty)
	v2.GET("/customer-properties/:slug", s.getCustomerProperty)
	v2.DELETE("/customer-properties/:slug", s.deleteCustomerProperty)

	v2.GET("/organizations", s.listOrganizations)
	v2.POST("/organizations", s.createOrganization)
	v2.GET("/organizations/:organizationId", s.getOrganization)
	v2.PUT("/organizations/:organizationId", s.updateOrganization)
	v2.DELETE("/organizations/:organizationId", s.deleteOrganization)
	v2.GET("/organizations/:organizationId/customers", s.listOrganizationCustomers)
	v2.GET("/organizations/:organizationId/conversations", s.listOrganizationConversations)
	s.organizationPropertyRoutes(v2)

	s.router.Group("/v3", s.authenticate).GET("/customers", s.listCustomersV3)
}
