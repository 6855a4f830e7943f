// Preloaded before every test file (bunfig.toml): each route's replies are checked against the
// schemas it declares, so a reply that drifts from the documented contract fails the test that provoked it.
process.env.GATEWAY_CHECK_REPLIES = "1";
