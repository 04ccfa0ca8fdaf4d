/**
 * The second held-out batch: written after the planner had been tuned on the first set's tuning
 * part, and never looked at while tuning; every question here is held out. Same datasets, same
 * conventions as retail-questions.ts and support-questions.ts.
 */
import type { RawQuestion } from './types.js';

const REV = `order_lines l JOIN orders o ON o.order_id = l.order_id`;
const ORDER_TOTALS = `(SELECT order_id, sum(amount) AS v FROM order_lines GROUP BY 1)`;
const TA = `tickets t JOIN agents a ON a.agent_id = t.agent_id`;
const TC = `tickets t JOIN accounts c ON c.account_id = t.account_id`;

export const HELDOUT_RETAIL: RawQuestion[] = [
  ['How many orders were placed in 2023?', `SELECT count(*) FROM orders WHERE year(order_date) = 2023`],
  ['Revenue per country for 2023', `SELECT c.country, sum(l.amount) FROM ${REV} JOIN customers c ON c.customer_id = o.customer_id WHERE year(o.order_date) = 2023 GROUP BY 1`],
  ['What are the top 3 products by units sold?', `SELECT p.name, sum(l.quantity) AS u FROM order_lines l JOIN products p USING (product_id) GROUP BY p.product_id, p.name ORDER BY u DESC, p.product_id LIMIT 3`],
  ['Which customer placed the most orders?', `SELECT c.name FROM orders o JOIN customers c USING (customer_id) GROUP BY c.customer_id, c.name ORDER BY count(*) DESC, c.customer_id LIMIT 1`],
  ['Average unit price of Electronics products', `SELECT avg(unit_price) FROM products WHERE category = 'Electronics'`],
  ['How many customers do we have in the UK?', `SELECT count(*) FROM customers WHERE country = 'United Kingdom'`],
  ['Number of cancelled orders by month in 2024', `SELECT strftime(order_date, '%Y-%m'), count(*) FROM orders WHERE status = 'cancelled' AND year(order_date) = 2024 GROUP BY 1`],
  ['What share of orders were placed by phone?', `SELECT round(100.0 * count(*) FILTER (WHERE channel = 'phone') / count(*), 2) FROM orders`],
  ['Which quarter of 2023 had the most orders?', `SELECT strftime(order_date, '%Y') || '-Q' || quarter(order_date) FROM orders WHERE year(order_date) = 2023 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`],
  ['Revenue for the Toys category in 2024', `SELECT sum(l.amount) FROM ${REV} JOIN products p ON p.product_id = l.product_id WHERE p.category = 'Toys' AND year(o.order_date) = 2024`],
  ['How many customers in Italy are Small Business customers?', `SELECT count(*) FROM customers WHERE country = 'Italy' AND segment = 'Small Business'`],
  ['Median order value for store orders', `SELECT median(t.v) FROM ${ORDER_TOTALS} t JOIN orders o USING (order_id) WHERE o.channel = 'store'`],
  ['Which city in Spain has the most customers?', `SELECT city FROM customers WHERE country = 'Spain' GROUP BY 1 ORDER BY count(*) DESC, city LIMIT 1`],
  ['How many orders were returned in Q3 2024?', `SELECT count(*) FROM orders WHERE status = 'returned' AND order_date >= DATE '2024-07-01' AND order_date < DATE '2024-10-01'`],
  ['Total units sold per category in 2023', `SELECT p.category, sum(l.quantity) FROM ${REV} JOIN products p ON p.product_id = l.product_id WHERE year(o.order_date) = 2023 GROUP BY 1`],
  ['How many products cost less than 20?', `SELECT count(*) FROM products WHERE unit_price < 20`],
  [
    'Top 5 customers by revenue in 2024',
    `SELECT c.name, sum(l.amount) AS r FROM ${REV} JOIN customers c ON c.customer_id = o.customer_id WHERE year(o.order_date) = 2024 GROUP BY c.customer_id, c.name ORDER BY r DESC, c.customer_id LIMIT 5`,
  ],
  ['Revenue by channel and year', `SELECT o.channel, year(o.order_date), sum(l.amount) FROM ${REV} GROUP BY 1, 2`],
  ['Percentage of revenue by category', `SELECT p.category, round(100.0 * sum(l.amount) / sum(sum(l.amount)) OVER (), 2) FROM order_lines l JOIN products p USING (product_id) GROUP BY 1`],
  ['How many customers signed up in March 2023?', `SELECT count(*) FROM customers WHERE signup_date >= DATE '2023-03-01' AND signup_date < DATE '2023-04-01'`],
  ['What was the average discount in 2024?', `SELECT avg(l.discount) FROM ${REV} WHERE year(o.order_date) = 2024`],
  ['Store vs online orders in 2023', `SELECT channel, count(*) FROM orders WHERE channel IN ('store', 'online') AND year(order_date) = 2023 GROUP BY 1`],
  ['How many customers have never ordered?', `SELECT count(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)`],
  ['Average order value in the Consumer segment', `SELECT avg(t.v) FROM ${ORDER_TOTALS} t JOIN orders o USING (order_id) JOIN customers c ON c.customer_id = o.customer_id WHERE c.segment = 'Consumer'`],
  [
    'what did we sell the most of in december 2024',
    `SELECT p.name FROM ${REV} JOIN products p ON p.product_id = l.product_id WHERE o.order_date >= DATE '2024-12-01' AND o.order_date < DATE '2025-01-01' GROUP BY p.product_id, p.name ORDER BY sum(l.quantity) DESC, p.product_id LIMIT 1`,
    { c: true },
  ],
  ['orders in q2 2023?', `SELECT count(*) FROM orders WHERE order_date >= DATE '2023-04-01' AND order_date < DATE '2023-07-01'`, { c: true }],
  ['top 3 cats by rev', `SELECT p.category, sum(l.amount) AS r FROM order_lines l JOIN products p USING (product_id) GROUP BY 1 ORDER BY r DESC LIMIT 3`, { c: true }],
  ['how many corporate customers do we have', `SELECT count(*) FROM customers WHERE segment = 'Corporate'`, { c: true }],
  ['avg items per order in 2024', `SELECT avg(q) FROM (SELECT l.order_id, sum(l.quantity) AS q FROM ${REV} WHERE year(o.order_date) = 2024 GROUP BY 1)`, { c: true }],
  ['cancelled orders by channel', `SELECT channel, count(*) FROM orders WHERE status = 'cancelled' GROUP BY 1`, { c: true }],
];

export const HELDOUT_SUPPORT: RawQuestion[] = [
  ['How many tickets were opened in 2024?', `SELECT count(*) FROM tickets WHERE year(opened_date) = 2024`],
  ['Tickets by channel and priority', `SELECT channel, priority, count(*) FROM tickets GROUP BY 1, 2`],
  ['Which agent has the highest average satisfaction?', `SELECT a.name FROM ${TA} GROUP BY a.agent_id, a.name ORDER BY avg(t.satisfaction) DESC, a.agent_id LIMIT 1`],
  ['Average first response time by channel', `SELECT channel, avg(first_response_minutes) FROM tickets GROUP BY 1`],
  ['How many Enterprise accounts are there in North America?', `SELECT count(*) FROM accounts WHERE plan = 'Enterprise' AND region = 'North America'`],
  ['Number of tickets per team in 2025', `SELECT a.team, count(*) FROM ${TA} WHERE year(t.opened_date) = 2025 GROUP BY 1`],
  ['What percentage of tickets are urgent?', `SELECT round(100.0 * count(*) FILTER (WHERE priority = 'urgent') / count(*), 2) FROM tickets`],
  ['Top 3 industries by number of tickets', `SELECT c.industry, count(*) AS n FROM ${TC} GROUP BY 1 ORDER BY n DESC LIMIT 3`],
  ['How many tickets were opened in the fourth quarter of 2025?', `SELECT count(*) FROM tickets WHERE opened_date >= DATE '2025-10-01' AND opened_date < DATE '2026-01-01'`],
  ['Which month of 2025 had the lowest average satisfaction?', `SELECT strftime(opened_date, '%Y-%m') FROM tickets WHERE year(opened_date) = 2025 GROUP BY 1 ORDER BY avg(satisfaction) ASC LIMIT 1`],
  ['How many accounts are in the Healthcare industry?', `SELECT count(*) FROM accounts WHERE industry = 'Healthcare'`],
  ['Median satisfaction by plan', `SELECT c.plan, median(t.satisfaction) FROM ${TC} GROUP BY 1`],
  ['How many bug tickets came in through email in 2025?', `SELECT count(*) FROM tickets WHERE category = 'bug' AND channel = 'email' AND year(opened_date) = 2025`],
  ['Tickets opened per month in 2024', `SELECT strftime(opened_date, '%Y-%m'), count(*) FROM tickets WHERE year(opened_date) = 2024 GROUP BY 1`],
  ['How many accounts have more than 50 tickets?', `SELECT count(*) FROM accounts c WHERE (SELECT count(*) FROM tickets t WHERE t.account_id = c.account_id) > 50`],
  ['Chat vs phone average first response time', `SELECT channel, avg(first_response_minutes) FROM tickets WHERE channel IN ('chat', 'phone') GROUP BY 1`],
  ['which region files the most urgent tickets', `SELECT c.region FROM ${TC} WHERE t.priority = 'urgent' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`, { c: true }],
  ['avg csat for the technical team', `SELECT avg(t.satisfaction) FROM ${TA} WHERE a.team = 'Technical'`, { c: true }],
  ['# of pending tickets', `SELECT count(*) FROM tickets WHERE status = 'pending'`, { c: true }],
  ['how many agents r there per team', `SELECT team, count(*) FROM agents GROUP BY 1`, { c: true }],
];
