package authority_test

// The kinds register themselves with the core when imported; the tests of
// the core serve them as the console does.
import _ "github.com/solgate/solgate/mcpbridge/authority/kinds"
