CREATE TABLE "list_counts" (
	"entity" text NOT NULL,
	"adult" boolean NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "list_counts_pkey" PRIMARY KEY("entity","adult")
);
