CREATE TABLE "tag_usage" (
	"tag" text PRIMARY KEY NOT NULL,
	"uses" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "tag_usage_tag_trgm_idx" ON "tag_usage" USING gin ("tag" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "tag_usage_uses_idx" ON "tag_usage" USING btree ("uses" DESC NULLS FIRST);