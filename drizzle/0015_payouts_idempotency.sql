ALTER TABLE "payouts" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "payouts" ADD COLUMN "request_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "payouts_idempotency_key" ON "payouts" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "payouts_campaign_created_idx" ON "payouts" USING btree ("campaign_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "donations" DROP COLUMN "receipt_token_hash";