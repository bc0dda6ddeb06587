package main

import "github.com/harvester-dev/harvester/router"

// startEmbeddedNATS starts an in-process nats-server for the JetStream ceiling of an -embedded
// run (the harvester starts its own) and returns its URL and shutdown.
func startEmbeddedNATS(dir string) (url string, stop func(), err error) {
	e, err := router.StartEmbedded(dir)
	if err != nil {
		return "", nil, err
	}
	return e.URL(), e.Shutdown, nil
}
