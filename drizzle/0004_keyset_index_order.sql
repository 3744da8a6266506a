DROP INDEX "users_created_id_idx";--> statement-breakpoint
DROP INDEX "email_outbox_to_idx";--> statement-breakpoint
DROP INDEX "change_history_subject_idx";--> statement-breakpoint
DROP INDEX "change_history_actor_idx";--> statement-breakpoint
CREATE INDEX "users_created_id_idx" ON "users" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "email_outbox_to_idx" ON "email_outbox" USING btree ("to_address","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "change_history_subject_idx" ON "change_history" USING btree ("subject_user_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "change_history_actor_idx" ON "change_history" USING btree ("actor_id","created_at" DESC NULLS FIRST);